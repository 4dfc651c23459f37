import { isIPv4, isIPv6 } from 'node:net';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, SubjectAlternativeName } from '@peculiar/asn1-x509';
import { PkiError } from './pki-error.js';

/**
 * Subject alternative names: the console's comma-separated lists, validated entry by
 * entry, to GeneralNames (dNSName, iPAddress, rfc822Name) and back.
 */

export interface SanInput {
  readonly dns?: string;
  readonly ips?: string;
  readonly emails?: string;
}

export interface SanList {
  readonly dns: string[];
  readonly ips: string[];
  readonly emails: string[];
}

const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** A DNS name (LDH labels, at most 253 characters); `*` is allowed as the whole leftmost label. */
export function isDnsName(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  const labels = value.replace(/\.$/, '').split('.');
  return labels.every(
    (label, index) => (index === 0 && label === '*' && labels.length > 2) || LABEL.test(label),
  );
}

export function isEmail(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at <= 0 || value.length > 254) return false;
  const local = value.slice(0, at);
  return (
    /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/.test(local) &&
    !/^\.|\.$|\.\./.test(local) &&
    isDnsName(value.slice(at + 1)) &&
    !value.slice(at + 1).includes('*')
  );
}

function split(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Validates the three lists; the first bad entry is named in `PkiError('invalid-san', { field, value })`. */
export function parseSanList(input: SanInput): SanList {
  const bad = (field: string, value: string) =>
    new PkiError('invalid-san', `'${value}' is not a valid ${field} entry`, { field, value });
  const dns = split(input.dns);
  const ips = split(input.ips);
  const emails = split(input.emails);
  for (const value of dns) if (!isDnsName(value)) throw bad('dns', value);
  for (const value of ips) if (!isIPv4(value) && !isIPv6(value)) throw bad('ips', value);
  for (const value of emails) if (!isEmail(value)) throw bad('emails', value);
  return { dns, ips, emails };
}

/** The 4 or 16 bytes of an IP address (IPv6 with `::` and an embedded IPv4 tail). */
export function ipToBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  if (!isIPv6(ip))
    throw new PkiError('invalid-san', `'${ip}' is not an IP address`, { field: 'ips', value: ip });
  let text = ip.replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  const out = Buffer.alloc(16);
  groups.forEach((group, index) => out.writeUInt16BE(parseInt(group, 16), index * 2));
  return out;
}

/** The text form of 4 or 16 IP bytes (IPv6 compressed per RFC 5952). */
export function ipFromBytes(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length !== 16) return bytes.toString('hex');
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

export function sanGeneralNames(san: SanList): GeneralName[] {
  return [
    ...san.dns.map((dNSName) => new GeneralName({ dNSName })),
    // The library's converter reads no IPv4-in-IPv6 tail: hand it the canonical text.
    ...san.ips.map((ip) => new GeneralName({ iPAddress: ipFromBytes(ipToBytes(ip)) })),
    ...san.emails.map((rfc822Name) => new GeneralName({ rfc822Name })),
  ];
}

export const isEmptySan = (san: SanList): boolean =>
  san.dns.length + san.ips.length + san.emails.length === 0;

/** The SubjectAlternativeName extension value (DER of GeneralNames). */
export function sanExtensionValue(san: SanList): Buffer {
  return Buffer.from(AsnConvert.serialize(new SubjectAlternativeName(sanGeneralNames(san))));
}

/** The dNSName, iPAddress and rfc822Name entries of GeneralNames DER (others are skipped). */
export function sanFromExtensionValue(value: ArrayBuffer | Buffer): SanList {
  const names = AsnConvert.parse(value, SubjectAlternativeName);
  const san: SanList = { dns: [], ips: [], emails: [] };
  for (const name of names) {
    if (name.dNSName !== undefined) san.dns.push(name.dNSName);
    else if (name.iPAddress !== undefined) san.ips.push(name.iPAddress);
    else if (name.rfc822Name !== undefined) san.emails.push(name.rfc822Name);
  }
  return san;
}
