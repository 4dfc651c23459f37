import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/**
 * The Wycheproof vector files kept in `fixtures/wycheproof/` (as published in C2SP/wycheproof
 * `testvectors_v1/`, gzipped; see the README there). Only the fields the suites read are typed.
 */
export interface WycheproofTest {
  tcId: number;
  comment: string;
  flags: string[];
  result: 'valid' | 'invalid' | 'acceptable';
  [field: string]: unknown;
}

export interface WycheproofGroup {
  type: string;
  tests: WycheproofTest[];
  [field: string]: unknown;
}

export interface WycheproofFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: WycheproofGroup[];
}

export function wycheproof(name: string): WycheproofFile {
  const url = new URL(`./fixtures/wycheproof/${name}.json.gz`, import.meta.url);
  return JSON.parse(gunzipSync(readFileSync(url)).toString('utf8')) as WycheproofFile;
}

/** A hex field of a test or group as Base64 (the API's encoding). */
export const hexToBase64 = (hex: unknown): string => Buffer.from(String(hex), 'hex').toString('base64');

/** Runs `work` on every item with at most `limit` of them in flight. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
