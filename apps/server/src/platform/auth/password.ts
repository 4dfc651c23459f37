import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * The login form sends base64(sha256(utf8(password))) (docs/console.md#login-encoding); calls that set a
 * password send it as typed and the server derives the same value. Only a slow,
 * salted scrypt hash of that value is stored.
 */
export function clientHash(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('base64');
}

/**
 * The scrypt cost of a stored password, as log2 of N: 15 (N = 32768) in production. Each hash
 * keeps its own N, r and p, so a hash stored at any cost still verifies. The test suites start
 * their servers with a lower cost (KSP_TEST_PASSWORD_COST, accepted only with NODE_ENV=test,
 * docs/testing.md#sign-in-cost) because they sign in thousands of times; password.test.ts
 * checks that the default stays 15.
 */
export const PASSWORD_COST = 15;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 128 * (1 << PASSWORD_COST) * R * 2;

function derive(secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEYLEN, { N: n, r, p, maxmem: Math.max(MAXMEM, 128 * n * r * 2) }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** A salted scrypt hash at the given cost (log2 N; the production cost unless a test server says otherwise). */
export async function hashPassword(clientHashed: string, cost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const n = 1 << cost;
  const key = await derive(clientHashed, salt, n, R, P);
  return `scrypt$${n}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const dummy = (cost: number) =>
  `scrypt$${1 << cost}$${R}$${P}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

/**
 * Verifies in constant time at the stored hash's own cost; with no stored hash it still spends
 * the effort of a hash at `cost` (the cost this server stores new hashes at).
 */
export async function verifyPassword(
  clientHashed: string,
  stored: string | null,
  cost = PASSWORD_COST,
): Promise<boolean> {
  const parts = (stored ?? dummy(cost)).split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(clientHashed, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}
