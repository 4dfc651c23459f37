import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';

/** File name of the one-time setup code, in the data directory. */
export const SETUP_CODE_FILE = 'setup-code';

/** Spaces, dashes and case do not matter when the code is typed back. */
export function normalizeSetupCode(input: string): string {
  return input.replace(/[^0-9a-z]/gi, '').toUpperCase();
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The one-time code that proves a first-run caller can read the server's console or data
 * directory, when the server listens on a network address (see README.md beside this file).
 * 128 random bits, shown as 8 groups of 4 hex digits.
 */
export function createSetupCode(file: string) {
  let expected: Buffer | null = null;

  return {
    get required(): boolean {
      return expected !== null;
    },
    /** Makes a new code, writes it to the file (0600) and returns it for the console. */
    issue(): string {
      const code = randomBytes(16).toString('hex').toUpperCase().match(/.{4}/g)!.join('-');
      writeFileSync(file, `${code}\n`, { mode: 0o600 });
      chmodSync(file, 0o600); // an existing file keeps its old mode otherwise
      expected = digest(normalizeSetupCode(code));
      return code;
    },
    /** Constant time: both sides are hashed to 32 bytes before the comparison. */
    matches(given: string | undefined): boolean {
      if (!expected || given === undefined) return false;
      return timingSafeEqual(digest(normalizeSetupCode(given)), expected);
    },
    /** First run is over (or was before this start): no code any more, and no file. */
    retire(): void {
      expected = null;
      rmSync(file, { force: true });
    },
  };
}

export type SetupCode = ReturnType<typeof createSetupCode>;
