// @ts-check
// Protocol errors: the codes the page acts on, the plain cloneable error object, and the
// Error subclass the worker throws (converted by toErrorObject before posting). Part of the
// contract in protocol.js, which re-exports all of it.

/**
 * @typedef {object} ErrorObject
 * @property {ErrCode} code
 * @property {string} message
 * @property {string|null} file
 * @property {number|null} line  1-based
 * @property {string|null} expected
 * @property {string|null} detail
 */

export const ERR = Object.freeze({
  BAD_INPUT: 'bad_input',
  CANCELLED: 'cancelled',
  ASSET_LOAD_FAILED: 'asset_load_failed',
  INTERNAL: 'internal',
});

/** @type {Set<any>} */
export const ERROR_CODES = new Set(Object.values(ERR));

/** @typedef {typeof ERR[keyof typeof ERR]} ErrCode */

/**
 * Make a plain, cloneable error object out of anything thrown or returned.
 *
 * Args: err: an object with some of {code, message, file, line, expected, detail}
 *   (a bridge error dict, a ProtocolError, an Error, a string).
 * Returns: {code, message, file, line, expected, detail}; code is one of ERR
 *   (unknown codes become 'internal'), file/expected are strings or null, line is an
 *   integer (1-based) or null, detail is a string or null.
 */
/**
 * @param {any} err
 * @param {ErrCode} [fallbackCode]
 * @returns {ErrorObject}
 */
export function toErrorObject(err, fallbackCode = ERR.INTERNAL) {
  if (err === null || err === undefined) err = {};
  if (typeof err === 'string') err = { message: err };
  const code = ERROR_CODES.has(err.code) ? err.code : fallbackCode;
  let message = err.message !== undefined && err.message !== null ? String(err.message) : '';
  if (!message) message = code === ERR.INTERNAL ? 'unexpected error' : code;
  // A plain Error gives its name ('TypeError: ...') so the page can show what broke.
  if (err instanceof Error && err.name && err.name !== 'Error' && !('code' in err && ERROR_CODES.has(err.code))) {
    message = `${err.name}: ${message}`;
  }
  const line = Number.isInteger(err.line) ? err.line : null;
  let detail = err.detail ?? null;
  if (detail !== null && typeof detail !== 'string') {
    try { detail = JSON.stringify(detail); } catch { detail = String(detail); }
  }
  if (detail === null && err instanceof Error && code === ERR.INTERNAL && err.stack) detail = String(err.stack);
  return {
    code,
    message,
    file: err.file !== undefined && err.file !== null ? String(err.file) : null,
    line,
    expected: err.expected !== undefined && err.expected !== null ? String(err.expected) : null,
    detail,
  };
}

/**
 * The `message` of anything thrown, as text: String(e && e.message) ('undefined' when there is none).
 * @param {unknown} e
 * @returns {string}
 */
export const messageOf = (e) => String(e && /** @type {{message?: unknown}} */ (e).message);

/** An Error that carries a protocol error code (thrown inside the worker, converted before posting). */
export class ProtocolError extends Error {
  /**
   * @param {ErrCode} code
   * @param {string} message
   * @param {{file?: string | null, line?: number | null, expected?: string | null, detail?: string | null}} [where]
   */
  constructor(code, message, { file = null, line = null, expected = null, detail = null } = {}) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.file = file;
    this.line = line;
    this.expected = expected;
    this.detail = detail;
  }
}
