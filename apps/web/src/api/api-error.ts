/** A rejected call: `code` is the envelope code, or 0 for HTTP and network failures. */
export class ApiError extends Error {
  readonly code: number;
  readonly status: number | undefined;

  constructor(code: number, msg: string, status?: number) {
    super(msg);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
  }
}
