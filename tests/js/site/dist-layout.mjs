// Module resolve hook (see register.mjs): <repo>/site/worker/X -> <repo>/worker/X.
const SITE_WORKER = new URL('../../../site/worker/', import.meta.url).href;
const WORKER = new URL('../../../worker/', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (context.parentURL && /^\.\.?\//.test(specifier)) {
    const url = new URL(specifier, context.parentURL).href;
    if (url.startsWith(SITE_WORKER)) return next(WORKER + url.slice(SITE_WORKER.length), context);
  }
  return next(specifier, context);
}
