/**
 * The token side of the bridge over one PKCS#11 module (graphene-pk11): list the tokens,
 * read the login certificate, sign a login challenge, and provision UKEY certificates
 * (make the signing key pair and its CSR on the token, then write the issued certificates
 * and import the enveloped encryption key of a dual SM2 token).
 */
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import * as graphene from 'graphene-pk11';
import {
  Asn1Error,
  SM2_CURVE_PARAMS,
  buildCsr,
  certificateParts,
  parseSm2EnvelopedKey,
  publicKeyBits,
  rsaSpki,
  sm2Spki,
  type CsrAlgorithm,
} from './asn1.js';
import { sm2DecryptWith, sm2PublicKeyOf, sm2SignInBridge, sm4EcbDecrypt } from './sm2.js';

export class BridgeError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Labels of the objects the bridge provisions: the signing pair and the encryption pair. */
export const SIGNING_LABEL = 'ksp-sign';
export const ENCRYPTION_LABEL = 'ksp-enc';

export interface TokenOptions {
  /** Sign with SM2 in the bridge, from a key the token lets it read (no SM2 mechanism). */
  sm2InBridge: boolean;
}

export const toPem = (der: Buffer, label = 'CERTIFICATE') =>
  `-----BEGIN ${label}-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)
    ?.join('\n')}\n-----END ${label}-----\n`;

export function pkcs11Reason(err: unknown): BridgeError {
  const text = err instanceof Error ? err.message : String(err);
  if (text.includes('CKR_PIN_INCORRECT')) return new BridgeError(401, 'The PIN is incorrect');
  if (text.includes('CKR_PIN_LOCKED'))
    return new BridgeError(423, 'The token is locked: too many wrong PINs');
  if (text.includes('CKR_PIN_LEN_RANGE')) return new BridgeError(400, 'The PIN has the wrong length');
  return new BridgeError(500, `Token error: ${text.split('\n')[0]?.slice(0, 200) ?? 'unknown'}`);
}

const SM2_UNSUPPORTED =
  "This token's PKCS#11 module offers no SM2 signing the bridge can use; start the bridge with --sm2-in-bridge to sign SM2 in the bridge (see its README)";

/** A DER OCTET STRING around the EC point, as CKA_EC_POINT holds it (SoftHSM, OpenSC). */
function unwrapPoint(value: Buffer): Buffer {
  if (value.length === 67 && value[0] === 0x04 && value[1] === 0x41) return value.subarray(2);
  if (value.length === 65 && value[0] === 0x04) return value;
  throw new BridgeError(500, 'The token answered an EC point of an unexpected form');
}

const isSm2 = (key: graphene.Key) => {
  try {
    // graphene answers CKA_EC_PARAMS under its older name, paramsECDSA.
    const read = key.getAttribute({ paramsEC: null });
    const params = read.paramsEC ?? read.paramsECDSA;
    return params ? Buffer.from(params).equals(SM2_CURVE_PARAMS) : false;
  } catch {
    return false;
  }
};

function pemToDer(pem: unknown, field: string): Buffer {
  if (typeof pem !== 'string') throw new BridgeError(400, `${field}: a PEM certificate is required`);
  const match = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(pem);
  const der = match?.[1] ? Buffer.from(match[1].replace(/\s+/g, ''), 'base64') : null;
  try {
    if (!der) throw new Error('no PEM');
    new X509Certificate(der);
  } catch {
    throw new BridgeError(400, `${field}: not a PEM certificate`);
  }
  return der;
}

export interface KeygenInput {
  serial?: string | undefined;
  pin: string;
  algorithm: CsrAlgorithm;
  commonName: string;
}

export interface InstallInput {
  serial?: string | undefined;
  pin: string;
  keyId: string;
  certificate: unknown;
  encryptionCertificate?: unknown;
  envelopedKey?: unknown;
}

/** The token API the bridge needs, over one loaded PKCS#11 module. */
export function openTokens(modulePath: string, options: TokenOptions = { sm2InBridge: false }) {
  const mod = graphene.Module.load(modulePath, 'ukey');
  mod.initialize();

  function slots() {
    const found: { slot: graphene.Slot; serial: string; label: string }[] = [];
    const list = mod.getSlots(true);
    for (let i = 0; i < list.length; i++) {
      const slot = list.items(i);
      const token = slot.getToken();
      // Skip empty slots (SoftHSM always offers one uninitialized slot).
      if ((token.flags & graphene.TokenFlag.TOKEN_INITIALIZED) === 0) continue;
      found.push({ slot, serial: token.serialNumber.trim(), label: token.label.trim() });
    }
    return found;
  }

  function pick(serial: string | undefined) {
    const all = slots();
    const chosen = serial ? all.find((s) => s.serial === serial) : all[0];
    if (!chosen)
      throw new BridgeError(404, serial ? `No token with serial ${serial}` : 'No token is plugged in');
    return chosen;
  }

  /** Runs `work` in a session logged in with `pin` (read-write when asked), logging out after. */
  function withLogin<T>(
    serial: string | undefined,
    pin: string,
    write: boolean,
    work: (session: graphene.Session, serial: string) => T,
  ): T {
    const { slot, serial: s } = pick(serial);
    const flags = graphene.SessionFlag.SERIAL_SESSION | (write ? graphene.SessionFlag.RW_SESSION : 0);
    const session = slot.open(flags);
    try {
      try {
        session.login(pin, graphene.UserType.USER);
      } catch (err) {
        throw pkcs11Reason(err);
      }
      try {
        return work(session, s);
      } catch (err) {
        throw err instanceof BridgeError ? err : pkcs11Reason(err);
      } finally {
        session.logout();
      }
    } finally {
      session.close();
    }
  }

  const find = (session: graphene.Session, template: graphene.ITemplate) => {
    const found = session.find(template);
    const out: graphene.SessionObject[] = [];
    for (let i = 0; i < found.length; i++) out.push(found.items(i));
    return out;
  };

  /** The login certificate: the provisioned signing one, else the first that is not for encryption. */
  function loginCertificate(session: graphene.Session) {
    const certs = find(session, { class: graphene.ObjectClass.CERTIFICATE }).map((o) =>
      o.toType<graphene.X509Certificate>(),
    );
    const chosen =
      certs.filter((c) => c.label === SIGNING_LABEL).at(-1) ??
      certs.find((c) => c.label !== ENCRYPTION_LABEL);
    if (!chosen) throw new BridgeError(404, 'The token holds no certificate');
    return { der: Buffer.from(chosen.value), id: Buffer.from(chosen.id) };
  }

  /** Reads an SM2 private key's d for signing in the bridge (only in --sm2-in-bridge mode). */
  function sm2Scalar(key: graphene.Key): Buffer {
    if (!options.sm2InBridge) throw new BridgeError(501, SM2_UNSUPPORTED);
    try {
      return Buffer.from(key.getAttribute({ value: null }).value ?? Buffer.alloc(0));
    } catch {
      throw new BridgeError(
        501,
        'The SM2 key on this token cannot be read for signing in the bridge (it is sensitive)',
      );
    }
  }

  /** Signs `data` with `key`: SHA-256 RSA PKCS#1 v1.5, raw ECDSA over SHA-256, or SM2 (DER). */
  function signWith(session: graphene.Session, key: graphene.PrivateKey, data: Buffer, point?: Buffer) {
    if (key.type === graphene.KeyType.EC && isSm2(key)) {
      const d = sm2Scalar(key);
      try {
        return sm2SignInBridge(d, point ?? sm2PublicKeyOf(d), data);
      } finally {
        d.fill(0);
      }
    }
    if (key.type === graphene.KeyType.EC) {
      // Raw ECDSA (r||s) over a digest made here: tokens often lack ECDSA_SHA256.
      const digest = createHash('sha256').update(data).digest();
      return Buffer.from(session.createSign('ECDSA', key).once(digest));
    }
    if (key.type === graphene.KeyType.RSA)
      return Buffer.from(session.createSign('SHA256_RSA_PKCS', key).once(data));
    throw new BridgeError(400, 'Only EC, SM2 and RSA keys can sign');
  }

  /** Removes the objects under `label` whose CKA_ID is not `keep`. */
  function removeOthers(session: graphene.Session, label: string, keep: Buffer | null) {
    for (const object of find(session, { label })) {
      const id = Buffer.from(object.getAttribute({ id: null }).id ?? Buffer.alloc(0));
      if (!keep || !id.equals(keep)) object.destroy();
    }
  }

  const privateKeyById = (session: graphene.Session, id: Buffer) =>
    find(session, { class: graphene.ObjectClass.PRIVATE_KEY, id })[0]?.toType<graphene.PrivateKey>();
  const publicKeyById = (session: graphene.Session, id: Buffer) =>
    find(session, { class: graphene.ObjectClass.PUBLIC_KEY, id })[0]?.toType<graphene.PublicKey>();

  /** The generated pair's SubjectPublicKeyInfo, and its SM2 point if it is one. */
  function spkiOf(publicKey: graphene.PublicKey): { spki: Buffer; point?: Buffer } {
    if (publicKey.type === graphene.KeyType.RSA) {
      const { modulus, publicExponent } = publicKey.getAttribute({ modulus: null, publicExponent: null });
      return { spki: rsaSpki(Buffer.from(modulus ?? []), Buffer.from(publicExponent ?? [])) };
    }
    const point = unwrapPoint(Buffer.from(publicKey.getAttribute({ pointEC: null }).pointEC ?? []));
    return { spki: sm2Spki(point), point };
  }

  return {
    list: () => slots().map(({ serial, label }) => ({ serial, label })),

    certificate(serial: string | undefined) {
      const { slot, serial: s } = pick(serial);
      const session = slot.open(graphene.SessionFlag.SERIAL_SESSION);
      try {
        return { serial: s, certificate: toPem(loginCertificate(session).der) };
      } finally {
        session.close();
      }
    },

    /** Signs `data` (UTF-8) with the private key paired (same CKA_ID) with the login certificate. */
    sign(serial: string | undefined, pin: string, data: string) {
      return withLogin(serial, pin, false, (session, s) => {
        const cert = loginCertificate(session);
        const key = privateKeyById(session, cert.id);
        if (!key) throw new BridgeError(404, 'No private key goes with the certificate');
        const point =
          key.type === graphene.KeyType.EC && isSm2(key)
            ? publicKeyBits(certificateParts(cert.der).spki)
            : undefined;
        const signature = signWith(session, key, Buffer.from(data, 'utf8'), point);
        return { serial: s, signature: signature.toString('base64'), certificate: toPem(cert.der) };
      });
    },

    /**
     * Makes a new signing key pair on the token (CKA_ID random, label ksp-sign, the private
     * key sensitive) and its CSR for CN=commonName, signed on the token. Earlier pairs of
     * an unfinished provisioning (no certificate) are removed.
     */
    keygen(input: KeygenInput) {
      return withLogin(input.serial, input.pin, true, (session, s) => {
        if (input.algorithm === 'SM2' && !options.sm2InBridge) throw new BridgeError(501, SM2_UNSUPPORTED);
        const withCertificate = new Set(
          find(session, { class: graphene.ObjectClass.CERTIFICATE, label: SIGNING_LABEL }).map((o) =>
            Buffer.from(o.getAttribute({ id: null }).id ?? []).toString('hex'),
          ),
        );
        for (const object of find(session, { label: SIGNING_LABEL })) {
          const id = Buffer.from(object.getAttribute({ id: null }).id ?? []).toString('hex');
          if (!withCertificate.has(id)) object.destroy();
        }
        const id = randomBytes(8);
        const common = { token: true, id, label: SIGNING_LABEL };
        const pair =
          input.algorithm === 'RSA-2048'
            ? session.generateKeyPair(
                graphene.KeyGenMechanism.RSA,
                {
                  ...common,
                  keyType: graphene.KeyType.RSA,
                  modulusBits: 2048,
                  publicExponent: Buffer.from([1, 0, 1]),
                  verify: true,
                },
                {
                  ...common,
                  keyType: graphene.KeyType.RSA,
                  private: true,
                  sensitive: true,
                  extractable: false,
                  sign: true,
                },
              )
            : session.generateKeyPair(
                graphene.KeyGenMechanism.EC,
                { ...common, keyType: graphene.KeyType.EC, paramsEC: SM2_CURVE_PARAMS, verify: true },
                {
                  ...common,
                  keyType: graphene.KeyType.EC,
                  private: true,
                  sign: true,
                  // The envelope of a dual token is opened with this key (ECDH on the token).
                  derive: true,
                  // Signing SM2 in the bridge reads d (see README: a testing mode).
                  sensitive: false,
                  extractable: true,
                },
              );
        const { spki, point } = spkiOf(pair.publicKey);
        const csr = buildCsr(input.algorithm, input.commonName, spki, (info) =>
          signWith(session, pair.privateKey, info, point),
        );
        return { serial: s, key_id: id.toString('hex'), csr: toPem(csr, 'CERTIFICATE REQUEST') };
      });
    },

    /**
     * Writes the issued signing certificate next to its key pair and, for a dual SM2 token,
     * opens the GM/T 0009 envelope with the signing key (ECDH on the token), imports the
     * encryption key pair and writes its certificate. Earlier provisioned objects go.
     */
    install(input: InstallInput) {
      const signingDer = pemToDer(input.certificate, 'certificate');
      const dual = input.encryptionCertificate !== undefined || input.envelopedKey !== undefined;
      if (dual && (input.encryptionCertificate === undefined || input.envelopedKey === undefined))
        throw new BridgeError(400, 'encryption_certificate and enveloped_key go together (a dual UKEY)');
      const encryptionDer = dual ? pemToDer(input.encryptionCertificate, 'encryption_certificate') : null;
      let envelope: ReturnType<typeof parseSm2EnvelopedKey> | null = null;
      if (dual) {
        const text = input.envelopedKey;
        if (typeof text !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(text.replace(/\s+/g, '')))
          throw new BridgeError(400, 'enveloped_key: must be Base64 (GM/T 0009-2012 SM2EnvelopedKey)');
        try {
          envelope = parseSm2EnvelopedKey(Buffer.from(text.replace(/\s+/g, ''), 'base64'));
        } catch (err) {
          throw new BridgeError(400, err instanceof Asn1Error ? err.message : 'enveloped_key: not DER');
        }
      }
      const keyId = Buffer.from(input.keyId, 'hex');
      return withLogin(input.serial, input.pin, true, (session, s) => {
        const privateKey = privateKeyById(session, keyId);
        const publicKey = publicKeyById(session, keyId);
        if (!privateKey || !publicKey)
          throw new BridgeError(404, `key_id: no key pair ${input.keyId} on this token (make one first)`);
        const signing = certificateParts(signingDer);
        if (!publicKeyBits(signing.spki).equals(publicKeyBits(spkiOf(publicKey).spki)))
          throw new BridgeError(400, 'certificate: it is not for the key pair made on this token');
        const installed = ['signing'];
        let encryptionId: Buffer | null = null;
        if (envelope && encryptionDer) {
          const encryption = certificateParts(encryptionDer);
          if (!publicKeyBits(encryption.spki).equals(envelope.publicKey))
            throw new BridgeError(400, 'encryption_certificate: it does not match the enveloped key');
          const sharedX = (c1: Buffer) => {
            const secret = session.deriveKey(
              {
                name: 'ECDH1_DERIVE',
                params: new graphene.EcdhParams(graphene.EcKdf.NULL, null, c1),
              },
              privateKey,
              {
                class: graphene.ObjectClass.SECRET_KEY,
                keyType: graphene.KeyType.GENERIC_SECRET,
                token: false,
                sensitive: false,
                extractable: true,
                valueLen: 32,
              },
            );
            try {
              return Buffer.from(secret.getAttribute({ value: null }).value ?? []);
            } finally {
              secret.destroy();
            }
          };
          const sm4Key = sm2DecryptWith(sharedX, envelope.c1, envelope.c3, envelope.c2);
          if (!sm4Key || sm4Key.length !== 16) {
            sm4Key?.fill(0);
            throw new BridgeError(400, "enveloped_key: it does not open with this token's signing key");
          }
          let d: Buffer;
          try {
            d = sm4EcbDecrypt(sm4Key, envelope.encryptedPrivateKey);
          } catch {
            throw new BridgeError(400, 'enveloped_key: the private key does not decrypt');
          } finally {
            sm4Key.fill(0);
          }
          try {
            if (d.length !== 32 || !sm2PublicKeyOf(d).equals(envelope.publicKey))
              throw new BridgeError(400, 'enveloped_key: the private key does not match its public key');
            encryptionId = randomBytes(8);
            const common = {
              token: true,
              id: encryptionId,
              label: ENCRYPTION_LABEL,
              keyType: graphene.KeyType.EC,
              paramsEC: SM2_CURVE_PARAMS,
            };
            session.create({
              ...common,
              class: graphene.ObjectClass.PRIVATE_KEY,
              private: true,
              sensitive: true,
              extractable: false,
              derive: true,
              value: d,
            });
            session.create({
              ...common,
              class: graphene.ObjectClass.PUBLIC_KEY,
              pointEC: Buffer.concat([Buffer.of(0x04, 0x41), envelope.publicKey]),
            });
          } finally {
            d.fill(0);
          }
          session.create({
            class: graphene.ObjectClass.CERTIFICATE,
            certType: graphene.CertificateType.X_509,
            token: true,
            id: encryptionId,
            label: ENCRYPTION_LABEL,
            subject: encryption.subject,
            value: encryptionDer,
          });
          installed.push('encryption');
        }
        session.create({
          class: graphene.ObjectClass.CERTIFICATE,
          certType: graphene.CertificateType.X_509,
          token: true,
          id: keyId,
          label: SIGNING_LABEL,
          subject: signing.subject,
          value: signingDer,
        });
        // A re-issued UKEY replaces what an earlier provisioning wrote.
        removeOthers(session, SIGNING_LABEL, keyId);
        removeOthers(session, ENCRYPTION_LABEL, encryptionId);
        return { serial: s, installed };
      });
    },

    close: () => mod.finalize(),
  };
}
