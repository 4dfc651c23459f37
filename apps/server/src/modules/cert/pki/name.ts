import { AsnConvert } from '@peculiar/asn1-schema';
import { AttributeTypeAndValue, AttributeValue, Name, RelativeDistinguishedName } from '@peculiar/asn1-x509';
import { PkiError } from './pki-error.js';

/**
 * Distinguished names: RFC 4514 strings (most significant RDN last, as `openssl -nameopt
 * RFC2253` prints them) and the console's field object, to and from Name DER. Values
 * are UTF8String, except C, serialNumber (PrintableString) and emailAddress, DC (IA5String),
 * as RFC 5280 requires.
 */

interface AttributeSpec {
  readonly oid: string;
  readonly max: number;
  readonly string: 'utf8' | 'printable' | 'ia5';
}

const ATTRIBUTES: Readonly<Record<string, AttributeSpec>> = {
  CN: { oid: '2.5.4.3', max: 64, string: 'utf8' },
  SN: { oid: '2.5.4.4', max: 64, string: 'utf8' },
  SERIALNUMBER: { oid: '2.5.4.5', max: 64, string: 'printable' },
  C: { oid: '2.5.4.6', max: 2, string: 'printable' },
  L: { oid: '2.5.4.7', max: 128, string: 'utf8' },
  ST: { oid: '2.5.4.8', max: 128, string: 'utf8' },
  STREET: { oid: '2.5.4.9', max: 128, string: 'utf8' },
  O: { oid: '2.5.4.10', max: 64, string: 'utf8' },
  OU: { oid: '2.5.4.11', max: 64, string: 'utf8' },
  TITLE: { oid: '2.5.4.12', max: 64, string: 'utf8' },
  GIVENNAME: { oid: '2.5.4.42', max: 64, string: 'utf8' },
  DC: { oid: '0.9.2342.19200300.100.1.25', max: 63, string: 'ia5' },
  UID: { oid: '0.9.2342.19200300.100.1.1', max: 128, string: 'utf8' },
  EMAILADDRESS: { oid: '1.2.840.113549.1.9.1', max: 255, string: 'ia5' },
};
const ALIASES: Readonly<Record<string, string>> = { E: 'EMAILADDRESS', EMAIL: 'EMAILADDRESS', S: 'ST' };
/** The short names RFC 4514 §3 writes, plus the ones OpenSSL prints. */
const SHORT_NAME: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(ATTRIBUTES).map(([name, spec]) => [
    spec.oid,
    name === 'EMAILADDRESS'
      ? 'emailAddress'
      : name === 'SERIALNUMBER'
        ? 'serialNumber'
        : name === 'GIVENNAME'
          ? 'GN'
          : name,
  ]),
);

/** The console's subject fields. */
export interface NameFields {
  readonly cn?: string;
  readonly o?: string;
  readonly ou?: string;
  readonly c?: string;
  readonly st?: string;
  readonly l?: string;
  readonly email?: string;
}

const invalid = (message: string, details: Record<string, string> = {}): PkiError =>
  new PkiError('invalid-name', message, details);

/** A lone UTF-16 surrogate: text that is not well-formed and that no encoder can write. */
const LONE_SURROGATE = /\p{Surrogate}/u;

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;
// eslint-disable-next-line no-control-regex
const IA5 = /^[\x00-\x7f]*$/;

function attribute(keyword: string, value: string): AttributeTypeAndValue {
  const upper = keyword.toUpperCase();
  const name = ALIASES[upper] ?? upper;
  const spec = ATTRIBUTES[name];
  if (!spec) throw invalid(`Unknown name attribute '${keyword}'`);
  // Which attribute is at fault, so that the caller can name its field.
  const at = { attribute: name };
  if (value.length === 0) throw invalid(`The ${keyword} value is empty`, at);
  if (LONE_SURROGATE.test(value))
    throw invalid(`The ${keyword} value is not well-formed Unicode (a lone surrogate)`, at);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value))
    throw invalid(`The ${keyword} value has control characters`, at);
  if ([...value].length > spec.max)
    throw invalid(`The ${keyword} value is longer than ${spec.max} characters`, at);
  let attributeValue: AttributeValue;
  if (spec.string === 'printable') {
    if (!PRINTABLE.test(value))
      throw invalid(`The ${keyword} value has characters PrintableString cannot hold`, at);
    if (name === 'C' && !/^[A-Z]{2}$/.test(value)) throw invalid('C must be a two-letter country code', at);
    attributeValue = new AttributeValue({ printableString: value });
  } else if (spec.string === 'ia5') {
    if (!IA5.test(value)) throw invalid(`The ${keyword} value must be ASCII`, at);
    if (name === 'EMAILADDRESS' && !/^[^@\s]+@[^@\s]+$/.test(value))
      throw invalid('emailAddress is not an e-mail address', at);
    attributeValue = new AttributeValue({ ia5String: value });
  } else {
    attributeValue = new AttributeValue({ utf8String: value });
  }
  return new AttributeTypeAndValue({ type: spec.oid, value: attributeValue });
}

const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/** Splits an RFC 4514 string into RDNs of (type, value) pairs, undoing the escapes. */
function tokenize(input: string): { type: string; value: string }[][] {
  const rdns: { type: string; value: string }[][] = [];
  let rdn: { type: string; value: string }[] = [];
  let i = 0;
  const length = input.length;
  while (i < length) {
    while (input[i] === ' ') i++;
    const eq = input.indexOf('=', i);
    if (eq < 0) throw invalid(`Expected 'type=value' at position ${i}`);
    const type = input.slice(i, eq).trim();
    if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(type)) throw invalid(`Bad attribute type '${type}'`);
    i = eq + 1;
    if (input[i] === '#') throw invalid('Hex-encoded (#) attribute values are not accepted');
    const bytes: number[] = [];
    let pendingSpaces = 0;
    let sawValue = false;
    while (i < length) {
      const ch = input[i] ?? '';
      if (ch === ',' || ch === '+') break;
      if (ch === '\\') {
        const next = input.slice(i + 1, i + 3);
        for (; pendingSpaces > 0; pendingSpaces--) bytes.push(0x20);
        if (HEX_PAIR.test(next)) {
          bytes.push(parseInt(next, 16));
          i += 3;
        } else if (next.length > 0 && '"+,;<>\\= #'.includes(next[0] ?? '')) {
          bytes.push((next[0] ?? '').charCodeAt(0));
          i += 2;
        } else {
          throw invalid(`Bad escape at position ${i}`);
        }
        sawValue = true;
        continue;
      }
      if (ch === '"' || ch === ';' || ch === '<' || ch === '>')
        throw invalid(`Character '${ch}' must be escaped`);
      if (ch === ' ') {
        if (sawValue) pendingSpaces++;
        i++;
        continue;
      }
      for (; pendingSpaces > 0; pendingSpaces--) bytes.push(0x20);
      const code = input.codePointAt(i) ?? 0;
      bytes.push(...Buffer.from(String.fromCodePoint(code), 'utf8'));
      i += code > 0xffff ? 2 : 1;
      sawValue = true;
    }
    const decoded = Buffer.from(bytes);
    const value = decoded.toString('utf8');
    if (!Buffer.from(value, 'utf8').equals(decoded)) throw invalid('An escaped value is not valid UTF-8');
    rdn.push({ type, value });
    if (input[i] === '+') {
      i++;
      continue;
    }
    rdns.push(rdn);
    rdn = [];
    if (input[i] === ',') {
      i++;
      if (i >= length || input.slice(i).trim() === '') throw invalid('The name ends with a comma');
    }
  }
  if (rdn.length > 0) rdns.push(rdn);
  return rdns;
}

/** Name structure from an RFC 4514 string (`CN=web,O=Acme,C=CN`) or the console's fields. */
export function parseNameStructure(input: string | NameFields): Name {
  let rdns: RelativeDistinguishedName[];
  if (typeof input === 'string') {
    if (input.trim() === '') throw invalid('The name is empty');
    if (input.length > 2048) throw invalid('The name is longer than 2048 characters');
    rdns = tokenize(input)
      .reverse()
      .map((rdn) => new RelativeDistinguishedName(rdn.map((a) => attribute(a.type, a.value))));
  } else {
    // Most significant first, as OpenSSL orders a subject: C, ST, L, O, OU, CN, emailAddress.
    const order: [keyof NameFields, string][] = [
      ['c', 'C'],
      ['st', 'ST'],
      ['l', 'L'],
      ['o', 'O'],
      ['ou', 'OU'],
      ['cn', 'CN'],
      ['email', 'EMAILADDRESS'],
    ];
    rdns = order
      .map(([field, keyword]) => [keyword, input[field]?.trim() ?? ''] as const)
      .filter(([, value]) => value !== '')
      .map(([keyword, value]) => new RelativeDistinguishedName([attribute(keyword, value)]));
  }
  if (rdns.length === 0) throw invalid('The name has no attributes');
  return new Name(rdns);
}

/** Name DER from an RFC 4514 string or the console's fields; throws `invalid-name`. */
export function parseName(input: string | NameFields): Buffer {
  return Buffer.from(AsnConvert.serialize(parseNameStructure(input)));
}

function escapeValue(value: string): string {
  let out = '';
  const chars = [...value];
  chars.forEach((ch, index) => {
    if ('"+,;<>\\='.includes(ch)) out += `\\${ch}`;
    else if ((index === 0 && (ch === ' ' || ch === '#')) || (index === chars.length - 1 && ch === ' ')) {
      out += `\\${ch}`;
    } else if (ch.charCodeAt(0) < 0x20 || ch === '\x7f') {
      out += `\\${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    } else out += ch;
  });
  return out;
}

function formatAttribute(attribute: AttributeTypeAndValue): string {
  const short = SHORT_NAME[attribute.type];
  const v = attribute.value;
  const text =
    v.utf8String ?? v.printableString ?? v.ia5String ?? v.bmpString ?? v.teletexString ?? v.universalString;
  if (short && text !== undefined) return `${short}=${escapeValue(text)}`;
  const der = Buffer.from(AsnConvert.serialize(v));
  return `${attribute.type}=#${der.toString('hex')}`;
}

export function formatNameStructure(name: Name): string {
  return [...name]
    .reverse()
    .map((rdn) => [...rdn].map(formatAttribute).join('+'))
    .join(',');
}

/** RFC 4514 string of a Name DER (most significant RDN last). */
export function formatName(der: Buffer): string {
  let name: Name;
  try {
    name = AsnConvert.parse(der, Name);
  } catch {
    throw invalid('Not a Name DER');
  }
  return formatNameStructure(name);
}
