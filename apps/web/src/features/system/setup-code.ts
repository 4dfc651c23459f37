/**
 * The one-time setup code a server on a network address asks for during first run
 * (`setup_code_required` in the system status). Typed once on /system-active and kept for
 * this browser tab only, so that /user-active (activation) can send it too.
 */
const STORAGE_KEY = 'ksp.setupCode';

/** Spaces, dashes and case do not matter, as on the server. */
export function normalizeSetupCode(input: string): string {
  return input.replace(/[^0-9a-z]/gi, '').toUpperCase();
}

/** 32 hex digits once normalized: worth sending (the server still decides). */
export function isWellFormedSetupCode(input: string): boolean {
  return /^[0-9A-F]{32}$/.test(normalizeSetupCode(input));
}

/** The body of a first-run call, with the code when one is required. */
export function withSetupCode<B extends object>(
  body: B,
  required: boolean,
  code: string,
): B & { setup_code?: string } {
  return required ? { ...body, setup_code: normalizeSetupCode(code) } : body;
}

export function rememberedSetupCode(storage: Pick<Storage, 'getItem'> = sessionStorage): string {
  return storage.getItem(STORAGE_KEY) ?? '';
}

export function rememberSetupCode(code: string, storage: Pick<Storage, 'setItem'> = sessionStorage): void {
  storage.setItem(STORAGE_KEY, normalizeSetupCode(code));
}

export function forgetSetupCode(storage: Pick<Storage, 'removeItem'> = sessionStorage): void {
  storage.removeItem(STORAGE_KEY);
}
