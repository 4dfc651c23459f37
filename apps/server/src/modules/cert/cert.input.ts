import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { nonceBytes } from '../../platform/crypto/random.js';
import { invalid } from '../../platform/errors.js';
import * as pki from './cert.pki.js';
import { subjectFieldOf } from './name-fields.js';

/* What every job of the certificates area reads the same way: stored values and caller input. */

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export const b64 = (der: Buffer) => der.toString('base64');
export const unb64 = (text: string) => Buffer.from(text, 'base64');
export const iso = (date: Date) => date.toISOString();
export const wholeSeconds = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);
export const newId = () => uuidv7({ random: nonceBytes(16) });
export const fingerprintOf = (der: Buffer) => createHash('sha256').update(der).digest('hex');
export const pemChain = (ders: readonly Buffer[]) => ders.map((der) => pki.toPem(der, 'CERTIFICATE'));

/** A PkiError (bad input) as the contract's error, naming the field and the rule. */
function fromPki(err: unknown, field: string): never {
  if (!(err instanceof pki.PkiError)) throw err;
  switch (err.code) {
    case 'invalid-name':
      throw invalid('cert.invalidName', { field });
    case 'invalid-san': {
      const value = String(err.details.value ?? '');
      const kind = String(err.details.field ?? '');
      if (kind === 'ips') throw invalid('cert.invalidIp', { value });
      if (kind === 'emails') throw invalid('cert.invalidEmail', { value });
      throw invalid('cert.invalidDns', { value });
    }
    case 'private-key-refused':
      throw invalid('cert.privateKeyRefused');
    case 'invalid-csr':
      throw invalid('cert.invalidCsr');
    case 'chain-broken':
      throw invalid('cert.chainBroken', { subject: String(err.details.subject ?? '') });
    default:
      throw invalid(field === 'certificate' ? 'cert.invalidCertificatePem' : 'cert.invalidPem');
  }
}

/** Calls the engine on user input: its refusals become 4000 answers. */
export function checked<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    return fromPki(err, field);
  }
}

interface SanFields {
  dns_names?: string | undefined;
  ip_addresses?: string | undefined;
  emails?: string | undefined;
}

export function sanOf(fields: SanFields): pki.SanList {
  return checked('san', () =>
    pki.parseSanList({
      dns: fields.dns_names ?? '',
      ips: fields.ip_addresses ?? '',
      emails: fields.emails ?? '',
    }),
  );
}

export const mergeSan = (a: pki.SanList, b: pki.SanList): pki.SanList => ({
  dns: [...new Set([...a.dns, ...b.dns])],
  ips: [...new Set([...a.ips, ...b.ips])],
  emails: [...new Set([...a.emails, ...b.emails])],
});

interface NameInput {
  cn: string;
  o?: string | undefined;
  ou?: string | undefined;
  c?: string | undefined;
  st?: string | undefined;
  l?: string | undefined;
}

export function nameOf(fields: NameInput): Buffer {
  const parts: pki.NameFields = {
    cn: fields.cn,
    ...(fields.o ? { o: fields.o } : {}),
    ...(fields.ou ? { ou: fields.ou } : {}),
    ...(fields.c ? { c: fields.c.toUpperCase() } : {}),
    ...(fields.st ? { st: fields.st } : {}),
    ...(fields.l ? { l: fields.l } : {}),
  };
  try {
    return pki.parseName(parts);
  } catch (err) {
    return fromPki(err, subjectFieldOf(err));
  }
}

/** A download as the contract answers it: a file name, its type and its Base64 content. */
export const file = (filename: string, contentType: string, bytes: Buffer | string) => ({
  filename,
  content_type: contentType,
  content: (typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes).toString('base64'),
});

export const safeFileName = (name: string) =>
  name.replace(/[^\p{L}\p{N}_.-]+/gu, '_').slice(0, 64) || 'certificate';
