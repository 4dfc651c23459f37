import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * The login form sends base64(sha256(utf8(password))) (docs/console.md#login-encoding); calls that set a
 * password send it as typed and the server derives the same value. Only a slow,
 * salted scrypt hash of that value is stored.
 */
export function clientHash(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('base64');
}

const N = 1 << 15;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 128 * N * R * 2;

function derive(secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEYLEN, { N: n, r, p, maxmem: Math.max(MAXMEM, 128 * n * r * 2) }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(clientHashed: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(clientHashed, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const DUMMY = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

/** Verifies in constant time; with no stored hash it still spends the same effort. */
export async function verifyPassword(clientHashed: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? DUMMY).split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(clientHashed, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}
