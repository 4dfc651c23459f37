/**
 * The KMIP tags and enumeration values KSP reads or writes, by the names the specification
 * gives them (camel-cased). Values are the specification's; a tag KSP does not know is kept as
 * a number and refused where an operation needs to understand it.
 */
export const TAG = {
  ActivationDate: 0x420001,
  Attribute: 0x420008,
  AttributeIndex: 0x420009,
  AttributeName: 0x42000a,
  AttributeValue: 0x42000b,
  Authentication: 0x42000c,
  BatchCount: 0x42000d,
  BatchErrorContinuationOption: 0x42000e,
  BatchItem: 0x42000f,
  BatchOrderOption: 0x420010,
  BlockCipherMode: 0x420011,
  Certificate: 0x420013,
  CertificateType: 0x42001d,
  CertificateValue: 0x42001e,
  CommonTemplateAttribute: 0x42001f,
  CompromiseDate: 0x420020,
  CompromiseOccurrenceDate: 0x420021,
  Credential: 0x420023,
  CryptographicAlgorithm: 0x420028,
  CryptographicLength: 0x42002a,
  CryptographicParameters: 0x42002b,
  CryptographicUsageMask: 0x42002c,
  CustomAttribute: 0x42002d,
  DeactivationDate: 0x42002f,
  DestroyDate: 0x420033,
  Digest: 0x420034,
  DigestValue: 0x420035,
  EncryptionKeyInformation: 0x420036,
  HashingAlgorithm: 0x420038,
  InitialDate: 0x420039,
  IvCounterNonce: 0x42003d,
  Key: 0x42003f,
  KeyBlock: 0x420040,
  KeyCompressionType: 0x420041,
  KeyFormatType: 0x420042,
  KeyMaterial: 0x420043,
  KeyValue: 0x420045,
  KeyWrappingData: 0x420046,
  KeyWrappingSpecification: 0x420047,
  LastChangeDate: 0x420048,
  Link: 0x42004a,
  LinkType: 0x42004b,
  LinkedObjectIdentifier: 0x42004c,
  MacSignature: 0x42004d,
  MacSignatureKeyInformation: 0x42004e,
  MaximumItems: 0x42004f,
  MaximumResponseSize: 0x420050,
  Name: 0x420053,
  NameType: 0x420054,
  NameValue: 0x420055,
  ObjectGroup: 0x420056,
  ObjectType: 0x420057,
  Offset: 0x420058,
  Operation: 0x42005c,
  OperationPolicyName: 0x42005d,
  PaddingMethod: 0x42005f,
  PrivateKey: 0x420064,
  PrivateKeyTemplateAttribute: 0x420065,
  PrivateKeyUniqueIdentifier: 0x420066,
  ProtocolVersion: 0x420069,
  ProtocolVersionMajor: 0x42006a,
  ProtocolVersionMinor: 0x42006b,
  PublicKey: 0x42006d,
  PublicKeyTemplateAttribute: 0x42006e,
  PublicKeyUniqueIdentifier: 0x42006f,
  QueryFunction: 0x420074,
  RecommendedCurve: 0x420075,
  RequestHeader: 0x420077,
  RequestMessage: 0x420078,
  RequestPayload: 0x420079,
  ResponseHeader: 0x42007a,
  ResponseMessage: 0x42007b,
  ResponsePayload: 0x42007c,
  ResultMessage: 0x42007d,
  ResultReason: 0x42007e,
  ResultStatus: 0x42007f,
  RevocationMessage: 0x420080,
  RevocationReason: 0x420081,
  RevocationReasonCode: 0x420082,
  SecretData: 0x420085,
  SecretDataType: 0x420086,
  ServerInformation: 0x420088,
  State: 0x42008d,
  StorageStatusMask: 0x42008e,
  SymmetricKey: 0x42008f,
  TemplateAttribute: 0x420091,
  TimeStamp: 0x420092,
  UniqueBatchItemId: 0x420093,
  UniqueIdentifier: 0x420094,
  VendorIdentification: 0x42009d,
  WrappingMethod: 0x42009e,
  EncodingOption: 0x4200a3,
  Data: 0x4200c2,
  SignatureData: 0x4200c3,
  DataLength: 0x4200c4,
  RandomIv: 0x4200c5,
  MacData: 0x4200c6,
  IvLength: 0x4200cd,
  TagLength: 0x4200ce,
  ValidityIndicator: 0x42009b,
  CertificateLength: 0x4200ad,
  ObjectGroupMember: 0x4200ac,
  OffsetItems: 0x4200d4,
  LocatedItems: 0x4200d5,
  DigitalSignatureAlgorithm: 0x4200ae,
  OriginalCreationDate: 0x4200bc,
  AuthenticatedEncryptionAdditionalData: 0x4200fe,
  AuthenticatedEncryptionTag: 0x4200ff,
  // KMIP 2.0
  Attributes: 0x420125,
  CommonAttributes: 0x420126,
  PrivateKeyAttributes: 0x420127,
  PublicKeyAttributes: 0x420128,
  AttributeReference: 0x42013b,
  CurrentAttribute: 0x42013c,
  NewAttribute: 0x42013d,
} as const;

export type TagName = keyof typeof TAG;

const NAME_OF_TAG = new Map<number, TagName>(
  Object.entries(TAG).map(([name, tag]) => [tag, name as TagName]),
);

/** The specification's name of a tag KSP knows ("Request Header"), or its hex code (for messages and the audit). */
export function tagName(tag: number): string {
  const name = NAME_OF_TAG.get(tag);
  return name ? name.replace(/([a-z])([A-Z])/g, '$1 $2') : `0x${tag.toString(16).padStart(6, '0')}`;
}

export const OPERATION = {
  Create: 0x01,
  CreateKeyPair: 0x02,
  Register: 0x03,
  ReKey: 0x04,
  Locate: 0x08,
  Get: 0x0a,
  GetAttributes: 0x0b,
  GetAttributeList: 0x0c,
  AddAttribute: 0x0d,
  ModifyAttribute: 0x0e,
  DeleteAttribute: 0x0f,
  Activate: 0x12,
  Revoke: 0x13,
  Destroy: 0x14,
  Query: 0x18,
  DiscoverVersions: 0x1e,
  Encrypt: 0x1f,
  Decrypt: 0x20,
  Sign: 0x21,
  SignatureVerify: 0x22,
  Mac: 0x23,
  MacVerify: 0x24,
  RngRetrieve: 0x25,
  // KMIP 2.0
  SetAttribute: 0x31,
} as const;

export type OperationName = keyof typeof OPERATION;

export const RESULT_STATUS = {
  Success: 0,
  OperationFailed: 1,
  OperationPending: 2,
  OperationUndone: 3,
} as const;

export const RESULT_REASON = {
  ItemNotFound: 0x01,
  ResponseTooLarge: 0x02,
  AuthenticationNotSuccessful: 0x03,
  InvalidMessage: 0x04,
  OperationNotSupported: 0x05,
  MissingData: 0x06,
  InvalidField: 0x07,
  FeatureNotSupported: 0x08,
  CryptographicFailure: 0x0a,
  IllegalOperation: 0x0b,
  PermissionDenied: 0x0c,
  IndexOutOfBounds: 0x0e,
  KeyFormatTypeNotSupported: 0x10,
  KeyCompressionTypeNotSupported: 0x11,
  GeneralFailure: 0x100,
} as const;

export type ResultReasonName = keyof typeof RESULT_REASON;

export const BATCH_ERROR_CONTINUATION = { Continue: 1, Stop: 2, Undo: 3 } as const;

export const OBJECT_TYPE = {
  Certificate: 1,
  SymmetricKey: 2,
  PublicKey: 3,
  PrivateKey: 4,
  SecretData: 7,
} as const;

export const CRYPTOGRAPHIC_ALGORITHM = {
  AES: 0x03,
  RSA: 0x04,
  ECDSA: 0x06,
  HmacSha1: 0x07,
  HmacSha224: 0x08,
  HmacSha256: 0x09,
  HmacSha384: 0x0a,
  HmacSha512: 0x0b,
  EC: 0x1a,
} as const;

export const KEY_FORMAT_TYPE = {
  Raw: 0x01,
  Opaque: 0x02,
  Pkcs1: 0x03,
  Pkcs8: 0x04,
  X509: 0x05,
  TransparentSymmetricKey: 0x07,
} as const;

export const STATE = {
  PreActive: 1,
  Active: 2,
  Deactivated: 3,
  Compromised: 4,
  Destroyed: 5,
  DestroyedCompromised: 6,
} as const;

export const BLOCK_CIPHER_MODE = {
  CBC: 1,
  ECB: 2,
  CTR: 6,
  GCM: 9,
  AesKeyWrapPadding: 0x0c,
  NistKeyWrap: 0x0d,
} as const;

export const PADDING_METHOD = { None: 1, OAEP: 2, PKCS5: 3, PKCS1v15: 8, PSS: 0x0a } as const;

export const HASHING_ALGORITHM = { SHA1: 4, SHA224: 5, SHA256: 6, SHA384: 7, SHA512: 8 } as const;

export const REVOCATION_REASON_CODE = {
  Unspecified: 1,
  KeyCompromise: 2,
  CaCompromise: 3,
  AffiliationChanged: 4,
  Superseded: 5,
  CessationOfOperation: 6,
  PrivilegeWithdrawn: 7,
} as const;

export const QUERY_FUNCTION = { Operations: 1, Objects: 2, ServerInformation: 3 } as const;

export const NAME_TYPE = { UninterpretedTextString: 1, Uri: 2 } as const;

export const SECRET_DATA_TYPE = { Password: 1, Seed: 2 } as const;

export const CERTIFICATE_TYPE = { X509: 1, Pgp: 2 } as const;

// Cryptographic Usage Mask bits: the contract's `Usage` (@ksp/contracts) already holds KMIP's values.
