import type { ProtocolVersion } from './kmip.message.js';
import { all, KmipError, optional, required, ttlv } from './kmip.message.js';
import { TAG, tagName } from './kmip.tags.js';
import type { Ttlv, TtlvType } from './kmip.ttlv.js';

type Structure = Ttlv & { type: 'Structure' };

/**
 * The attributes KSP reads and answers (docs/kmip.md#attributes), by the specification's name,
 * with their tag (KMIP 2.0 writes an attribute as an item of that tag; 1.x as an Attribute
 * structure naming it) and their item type.
 */
export const ATTRIBUTES = {
  'Unique Identifier': { tag: TAG.UniqueIdentifier, type: 'TextString' },
  Name: { tag: TAG.Name, type: 'Structure' },
  'Object Type': { tag: TAG.ObjectType, type: 'Enumeration' },
  'Cryptographic Algorithm': { tag: TAG.CryptographicAlgorithm, type: 'Enumeration' },
  'Cryptographic Length': { tag: TAG.CryptographicLength, type: 'Integer' },
  'Cryptographic Parameters': { tag: TAG.CryptographicParameters, type: 'Structure' },
  'Cryptographic Usage Mask': { tag: TAG.CryptographicUsageMask, type: 'Integer' },
  'Operation Policy Name': { tag: TAG.OperationPolicyName, type: 'TextString' },
  State: { tag: TAG.State, type: 'Enumeration' },
  'Initial Date': { tag: TAG.InitialDate, type: 'DateTime' },
  'Activation Date': { tag: TAG.ActivationDate, type: 'DateTime' },
  'Deactivation Date': { tag: TAG.DeactivationDate, type: 'DateTime' },
  'Destroy Date': { tag: TAG.DestroyDate, type: 'DateTime' },
  'Compromise Date': { tag: TAG.CompromiseDate, type: 'DateTime' },
  'Last Change Date': { tag: TAG.LastChangeDate, type: 'DateTime' },
  'Original Creation Date': { tag: TAG.OriginalCreationDate, type: 'DateTime' },
  'Revocation Reason': { tag: TAG.RevocationReason, type: 'Structure' },
  'Object Group': { tag: TAG.ObjectGroup, type: 'TextString' },
  Link: { tag: TAG.Link, type: 'Structure' },
  'Certificate Type': { tag: TAG.CertificateType, type: 'Enumeration' },
  'Certificate Length': { tag: TAG.CertificateLength, type: 'Integer' },
  Digest: { tag: TAG.Digest, type: 'Structure' },
} as const satisfies Record<string, { tag: number; type: TtlvType }>;

export type AttributeName = keyof typeof ATTRIBUTES;

const NAME_OF_TAG = new Map<number, AttributeName>(
  (Object.entries(ATTRIBUTES) as [AttributeName, { tag: number }][]).map(([name, spec]) => [spec.tag, name]),
);

/** A custom attribute's name: `x-` (a client's own) or `y-` (a server's), then 1 to 60 characters. */
export const isCustomName = (name: string) => /^[xy]-[\x21-\x7e][\x20-\x7e]{0,59}$/.test(name);

/** One attribute of a request or an answer: its name and its value (an item of any tag). */
export interface Attribute {
  name: string;
  index: number;
  value: Ttlv;
}

export const isV2 = (version: ProtocolVersion) => version.major >= 2;

function checkType(name: string, value: Ttlv): void {
  const spec = (ATTRIBUTES as Record<string, { type: TtlvType } | undefined>)[name];
  if (!spec && !isCustomName(name))
    throw new KmipError(
      'InvalidField',
      `attribute ${name} is not one KSP knows (custom attributes start with x-)`,
    );
  if (spec && value.type !== spec.type)
    throw new KmipError(
      'InvalidField',
      `attribute ${name}: the value must be of type ${spec.type}, not ${value.type}`,
    );
}

/** A KMIP 1.x Attribute structure read: name, index and value (its type checked). */
export function readAttribute(item: Ttlv): Attribute {
  if (item.type !== 'Structure') throw new KmipError('InvalidField', 'an Attribute must be a Structure');
  const name = required(item, TAG.AttributeName, 'TextString').value;
  const index = optional(item, TAG.AttributeIndex, 'Integer')?.value ?? 0;
  const value = all(item, TAG.AttributeValue)[0];
  if (!value) throw new KmipError('MissingData', `attribute ${name}: Attribute Value is required`);
  checkType(name, value);
  return { name, index, value };
}

/** The name of the attribute a KMIP 2.0 Attribute Reference names by its tag. */
export function attributeNameOf(tag: number): AttributeName {
  const name = NAME_OF_TAG.get(tag);
  if (!name) throw new KmipError('InvalidField', `${tagName(tag)} is not an attribute KSP knows`);
  return name;
}

/** A KMIP 2.0 attribute item read (its tag names it). */
export function readTaggedAttribute(item: Ttlv): Attribute {
  const name = NAME_OF_TAG.get(item.tag);
  if (!name) throw new KmipError('InvalidField', `${tagName(item.tag)} is not an attribute KSP knows`);
  checkType(name, item);
  return { name, index: 0, value: item };
}

/**
 * The attributes a request carries in its template (1.x: Template-Attribute, its Attribute
 * structures; a named template is refused) or its Attributes structure (2.0).
 */
export function readAttributes(version: ProtocolVersion, container: Ttlv | undefined): Attribute[] {
  if (!container) return [];
  if (container.type !== 'Structure')
    throw new KmipError('InvalidField', `${tagName(container.tag)} must be a Structure`);
  if (isV2(version)) return container.value.map(readTaggedAttribute);
  if (all(container, TAG.Name).length)
    throw new KmipError('FeatureNotSupported', 'templates are not supported: give the attributes themselves');
  return all(container, TAG.Attribute).map(readAttribute);
}

/** The container of the attributes of a request payload, in the version's form. */
export function attributeContainer(
  version: ProtocolVersion,
  payload: Structure,
  which: 'plain' | 'common' | 'private' | 'public' = 'plain',
): Ttlv | undefined {
  const tags = isV2(version)
    ? {
        plain: TAG.Attributes,
        common: TAG.CommonAttributes,
        private: TAG.PrivateKeyAttributes,
        public: TAG.PublicKeyAttributes,
      }
    : {
        plain: TAG.TemplateAttribute,
        common: TAG.CommonTemplateAttribute,
        private: TAG.PrivateKeyTemplateAttribute,
        public: TAG.PublicKeyTemplateAttribute,
      };
  return all(payload, tags[which])[0];
}

/** The single value of an attribute in a list, or undefined. */
export const valueOf = (attrs: Attribute[], name: string): Ttlv | undefined =>
  attrs.find((a) => a.name === name)?.value;

/** An answer's attribute, written as the version writes it. */
export function writeAttribute(
  version: ProtocolVersion,
  attr: { name: string; index?: number; value: Ttlv },
): Ttlv {
  const spec = (ATTRIBUTES as Record<string, { tag: number }>)[attr.name];
  if (isV2(version)) return { ...attr.value, tag: spec?.tag ?? attr.value.tag };
  return ttlv.structure(TAG.Attribute, [
    ttlv.text(TAG.AttributeName, attr.name),
    ...(attr.index ? [ttlv.integer(TAG.AttributeIndex, attr.index)] : []),
    { ...attr.value, tag: TAG.AttributeValue },
  ]);
}

/** The value item of an attribute, tagged for 2.0 (1.x retags it when written). */
export const attrValue = {
  text: (name: AttributeName, value: string) => ttlv.text(ATTRIBUTES[name].tag, value),
  integer: (name: AttributeName, value: number) => ttlv.integer(ATTRIBUTES[name].tag, value),
  enumeration: (name: AttributeName, value: number) => ttlv.enumeration(ATTRIBUTES[name].tag, value),
  date: (name: AttributeName, at: Date) => ttlv.dateTime(ATTRIBUTES[name].tag, at),
  name: (value: string) =>
    ttlv.structure(TAG.Name, [ttlv.text(TAG.NameValue, value), ttlv.enumeration(TAG.NameType, 1)]),
  custom: (name: string, value: string) => ttlv.text(TAG.AttributeValue, value),
};

/** The name a Name attribute carries. */
export function nameText(value: Ttlv): string {
  if (value.type !== 'Structure') throw new KmipError('InvalidField', 'Name must be a Structure');
  return required(value, TAG.NameValue, 'TextString').value;
}

/** The text of a custom attribute's value (KSP keeps custom attributes as text). */
export function customText(attr: Attribute): string {
  const v = attr.value;
  switch (v.type) {
    case 'TextString':
      return v.value;
    case 'Integer':
    case 'Enumeration':
    case 'Interval':
      return String(v.value);
    case 'LongInteger':
    case 'BigInteger':
      return v.value.toString();
    case 'Boolean':
      return v.value ? 'true' : 'false';
    default:
      throw new KmipError(
        'InvalidField',
        `custom attribute ${attr.name}: KSP keeps text, numbers and booleans only`,
      );
  }
}
