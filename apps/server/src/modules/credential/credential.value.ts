import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { passwordClasses, type CredentialType, type MessageKey, type MessageParams } from '@ksp/contracts';
import { randomBytes } from '../../platform/crypto/random.js';
import { invalid } from '../../platform/errors.js';

/**
 * Checks a credential's value against its type. Refusals name the field and say what is
 * wrong in our own words: never a piece of the value (a parser's message may quote it).
 */
export function checkValue(type: CredentialType, value: string): void {
  const refuse = (key: MessageKey, params?: MessageParams) => {
    throw invalid(key, params);
  };
  switch (type) {
    case 'password':
    case 'api-key':
      return;
    case 'ssh-private-key': {
      const reason = sshKeyProblem(value);
      if (reason) refuse('credential.badSshKey', { reason });
      return;
    }
    case 'certificate-and-key': {
      const certs = pemBlocks(value, /^CERTIFICATE$/);
      if (certs.length === 0) refuse('credential.badCertificate', { reason: 'no CERTIFICATE block' });
      let cert: X509Certificate | undefined;
      try {
        cert = new X509Certificate(certs[0]!);
      } catch {
        refuse('credential.badCertificate', { reason: 'the first CERTIFICATE block is not X.509' });
      }
      const keys = pemBlocks(value, /PRIVATE KEY$/);
      if (keys.length !== 1)
        refuse('credential.badCertKey', {
          reason: keys.length === 0 ? 'no PRIVATE KEY block' : 'more than one PRIVATE KEY block',
        });
      const key = readPrivateKey(keys[0]!);
      if (!key) refuse('credential.badCertKey', { reason: 'unsupported or encrypted key' });
      if (!cert!.checkPrivateKey(key!)) refuse('credential.keyMismatch');
      return;
    }
    case 'key-value': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        refuse('credential.badKeyValue', { reason: 'not JSON' });
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        refuse('credential.badKeyValue', { reason: 'not an object' });
      const entries = Object.entries(parsed as Record<string, unknown>);
      if (entries.length === 0) refuse('credential.badKeyValue', { reason: 'no keys' });
      const bad = entries.find(([, v]) => typeof v !== 'string');
      if (bad) refuse('credential.badKeyValue', { reason: `key "${bad[0].slice(0, 64)}" is not a string` });
      return;
    }
  }
}

/** The PEM blocks of `text` whose label matches. */
function pemBlocks(text: string, label: RegExp): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g))
    if (label.test(m[1]!)) out.push(m[0]);
  return out;
}

function readPrivateKey(pem: string): KeyObject | null {
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return null;
  }
}

/**
 * Why `value` is not an SSH private key, or null when it is one: a PEM private key OpenSSL
 * reads (PKCS#8, PKCS#1, SEC1), or an OpenSSH key file (`openssh-key-v1`, as ssh-keygen
 * writes by default), checked for its structure.
 */
function sshKeyProblem(value: string): string | null {
  const blocks = pemBlocks(value.trim(), /PRIVATE KEY$/);
  if (blocks.length !== 1) return blocks.length === 0 ? 'no PRIVATE KEY block' : 'more than one key';
  const block = blocks[0]!;
  if (block.startsWith('-----BEGIN OPENSSH PRIVATE KEY-----')) {
    const body = block.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    const bytes = Buffer.from(body, 'base64');
    const magic = Buffer.from('openssh-key-v1\0', 'latin1');
    if (!bytes.subarray(0, magic.length).equals(magic)) return 'not an openssh-key-v1 file';
    let at = magic.length;
    const field = () => {
      if (at + 4 > bytes.length) return null;
      const len = bytes.readUInt32BE(at);
      if (at + 4 + len > bytes.length) return null;
      const out = bytes.subarray(at + 4, at + 4 + len);
      at += 4 + len;
      return out;
    };
    const cipher = field();
    const kdf = field();
    const kdfOptions = field();
    if (!cipher || !kdf || !kdfOptions || at + 4 > bytes.length) return 'truncated OpenSSH key';
    if (bytes.readUInt32BE(at) !== 1) return 'an OpenSSH file with more than one key';
    return null;
  }
  return readPrivateKey(block) ? null : 'unsupported or encrypted key';
}

/** A uniform index in [0, n) from the server's random source (rejection sampling). */
function randomIndex(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  for (;;) {
    const v = randomBytes(4).readUInt32BE(0);
    if (v < limit) return v % n;
  }
}

export type PasswordPolicyInput = {
  length: number;
  lower: boolean;
  upper: boolean;
  digits: boolean;
  symbols: boolean;
};

/**
 * A random password: one character of each chosen class, the rest drawn from all chosen
 * classes, then shuffled (Fisher–Yates), every draw from the server's CSPRNG.
 */
export function generatePassword(policy: PasswordPolicyInput): string {
  const classes = (Object.keys(passwordClasses) as (keyof typeof passwordClasses)[])
    .filter((c) => policy[c])
    .map((c) => passwordClasses[c]);
  if (classes.length === 0) throw invalid('credential.noClass');
  if (policy.length < classes.length)
    throw invalid('credential.lengthTooShort', { length: policy.length, classes: classes.length });
  const all = classes.join('');
  const chars = classes.map((set) => set[randomIndex(set.length)]!);
  while (chars.length < policy.length) chars.push(all[randomIndex(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
