import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { algorithmInfo } from '@ksp/contracts';
import { generateKey } from './generate.js';
import {
  type MlDsaAlgorithm,
  type MlKemAlgorithm,
  mlKemDecapsulate,
  mlKemEncapsulate,
  pqcKeyPairFromSeed,
  pqcSeedBytes,
  pqcSign,
  pqcVerify,
} from './post-quantum.js';

/*
 * Known answers come from NIST's ACVP server (usnistgov/ACVP-Server gen-val/json-files,
 * final FIPS 203/204 revisions; ML-KEM as mirrored in pq-code-package/mlkem-native
 * test/acvp_data v1.1.0.40). Long outputs are pinned by the SHA-256 of the published
 * hex, which was checked byte for byte against the published value when recorded.
 * No FIPS 203/204/205 vector files ship in node_modules.
 *
 * ML-KEM-768/1024 keyGen: pq-code-package/mlkem-native
 *   test/acvp_data/acvp_v1.1.0.40_keyGen_prompt.json (d, z; tgId 2 = ML-KEM-768, tgId 3 = ML-KEM-1024)
 *   test/acvp_data/acvp_v1.1.0.40_keyGen_expectedResults.json (ek, dk)
 * ML-DSA-65/87 keyGen: usnistgov/ACVP-Server (commit 203f667c26e10a1be89dfe8da7a54498fde2d848)
 *   gen-val/json-files/ML-DSA-keyGen-FIPS204/prompt.json (seed; tgId 2 = ML-DSA-65, tgId 3 = ML-DSA-87)
 *   gen-val/json-files/ML-DSA-keyGen-FIPS204/expectedResults.json (pk, sk)
 */

const hex = (text: string) => Buffer.from(text, 'hex');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const flip = (bytes: Buffer, index = 0) => {
  const copy = Buffer.from(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
};

/* FIPS 203 Table 3 and FIPS 204 Table 2, restated here so a catalogue typo cannot hide. */
const KEM_SIZES = {
  'ML-KEM-512': { publicKey: 800, privateKey: 1632, ciphertext: 768, category: 1 },
  'ML-KEM-768': { publicKey: 1184, privateKey: 2400, ciphertext: 1088, category: 3 },
  'ML-KEM-1024': { publicKey: 1568, privateKey: 3168, ciphertext: 1568, category: 5 },
} as const;
const DSA_SIZES = {
  'ML-DSA-44': { publicKey: 1312, privateKey: 2560, signature: 2420, category: 2 },
  'ML-DSA-65': { publicKey: 1952, privateKey: 4032, signature: 3309, category: 3 },
  'ML-DSA-87': { publicKey: 2592, privateKey: 4896, signature: 4627, category: 5 },
} as const;

describe('ML-KEM known answers (ACVP, FIPS 203)', () => {
  it('ML-KEM-512 keyGen tcId 1: (d, z) gives the published ek and dk', () => {
    const d = 'BBA3C0F5DF044CDF4D9CAA53CA15FDE26F34EB3541555CFC54CA9C31B964D0C8';
    const z = '0A64FDD51A8D91B3166C4958A94EFC3166A4F5DF680980B878DB8371B7624C96';
    const { publicKey, secretKey } = pqcKeyPairFromSeed('ML-KEM-512', hex(d + z));
    expect(publicKey.subarray(0, 16).toString('hex').toUpperCase()).toBe('1CAB32BE749CA76124EE19907B9CCB7F');
    expect(sha256(publicKey)).toBe('b0df180452d9338a6f34130fb530c90695d9df66101dbef1f27af75988a98fd7');
    expect(sha256(secretKey)).toBe('3b4f9c211799d36add60ce763ee9705dbb6359ee70177280551b45d612ea43e3');
    // dk = dk_PKE || ek || H(ek) || z
    expect(secretKey.subarray(768, 768 + 800)).toEqual(publicKey);
    expect(secretKey.subarray(-32).toString('hex').toUpperCase()).toBe(z);
  });

  it('ML-KEM-768 keyGen tgId 2 tcId 26: (d, z) gives the published ek and dk', () => {
    const d = 'A2B4BCA315A6EA4600B4A316E09A2578AA1E8BCE919C8DF3A96C71C843F5B38B';
    const z = 'D6BF055CB7B375E3271ED131F1BA31F83FEF533A239878A71074578B891265D1';
    const { publicKey, secretKey } = pqcKeyPairFromSeed('ML-KEM-768', hex(d + z));
    expect(publicKey.subarray(0, 16).toString('hex').toUpperCase()).toBe('5219C4CC17C35A828F3E21B2AB749680');
    expect(sha256(publicKey)).toBe('ed2430c8bd81af5cb02a8968db7319bf6e62d0a9a0c9492015610c209b5b3b15');
    expect(sha256(secretKey)).toBe('bd8662d4ae7210025a68e5634f0b53ba2f9e0331e8078ca075f4b51a06e8403f');
    // dk = dk_PKE || ek || H(ek) || z
    expect(secretKey.subarray(1152, 1152 + 1184)).toEqual(publicKey);
    expect(secretKey.subarray(-32).toString('hex').toUpperCase()).toBe(z);
  });

  it('ML-KEM-1024 keyGen tgId 3 tcId 51: (d, z) gives the published ek and dk', () => {
    const d = '2B5330C4F23BFDFD5C31F050BA3B38235324BF032372FC12D04DD08920F0BD59';
    const z = '0A064D6C06CEAB73E59CFCA9FF6402255A326AEF1E9CB678BF36929DAFE29A58';
    const { publicKey, secretKey } = pqcKeyPairFromSeed('ML-KEM-1024', hex(d + z));
    expect(publicKey.subarray(0, 16).toString('hex').toUpperCase()).toBe('B24174A5B00DBF520CB9E3783D482E03');
    expect(sha256(publicKey)).toBe('ed5f4d424848f7716874954c48d666a8c88e791320ed6779998d0452dccb8278');
    expect(sha256(secretKey)).toBe('f17c3cfc534e7dc8b46a3fbb36bb1ba5b1841171ff3b2e3e7f0131cf84b75381');
    // dk = dk_PKE || ek || H(ek) || z
    expect(secretKey.subarray(1536, 1536 + 1568)).toEqual(publicKey);
    expect(secretKey.subarray(-32).toString('hex').toUpperCase()).toBe(z);
  });

  it('ML-KEM-512 encapsulation tcId 1: (ek, m) gives the published c and K, and decapsulation agrees', () => {
    const ek = [
      'ADB031A018722F19C25829150A8B94297C9519173A2C908AEBF76F86C9724A0354300C6AB58A90C7B18A2E828B5FD2CD',
      'EACA9810EC00FD8CBB22AA6AE641B5824055A91B27C1F73518953913FA2037D295F42B7E34AABE90D72A2453B215D886',
      'EBE28779D76F4830B01A73291B5A7186454A91D665B9E6C04FE808F76AC25E298B97195999F866DBFABD571B59549787',
      'F5E316A0C65F3E9132089B219E11712D245AF955ACBFA36D37BB2DFD570ECF90941BD369E8023B2FF65F04D5408FA845',
      '31604A5EACCF3D62221429A1D6B1BE5FEB04EBA0BB698B6B6AE4CF72317D96E99B0A840AB55C275B9979BB231926D714',
      '0FC9B8C8124B87532E854113532A809C714D492746BEA7C30AA869DD780B77D0BADBBA9D9FE6A09780B1EE7076F5E3CA',
      'F5F470D004CB53098BFA340248835EC782B34D612C53701259D2583360935D8B5F25051BF196214D1CC6B33A8A47F41A',
      '65B5A143DB3651885214307B0D938F9D253672A4587EBC6D9743A3AFB35A3098149B27C3EA0BAAC5942D9A92856EB044',
      '7D1709ED70A673AA1FEBA5398A821FA21B215FD78866C29B1E75C50815CC3F093B7CA70717A10CCF8C18800722301630',
      '08AA675A17759937CA672A56BBA772C527A5F9F12D53267419559A7A1A0A3003B64D34ABC8F4294210B140F517BEE86F',
      '393BB577E6A41EB64A4EF633C8BA941314528B67A24F4829E99C96BF92022307A763A9086F7C597340C8FBBB0689DC1D',
      '28800BAD710422A9334A406B203101A6C97A3D00AC6C095735E22CBC60B3A0760C8B0268FB5BB3D7D0543BAB599FD326',
      '608264EA477EE8F8C178898FE7387F15A6B40B13B069D3B574967F8487309495420F20B23456CF6D010AB19CABA9B27C',
      'AE79B09D7084D1863359B40F205556456AAD5F92A5A36B49B737866901CF6FB47B59A9C5783C2C5FD95087DA417F7410',
      '708290B619B701852B051272AE0428263C28CB025E1C1103B2718A0DDA5FC30394600879AF509B62C57B88A018FEDB09',
      '642872591582ABB4AC1408A5750902589406E2479D3BC5AD8016610D7BA18D984EBD951393FC2B83446D474AC8E2A634',
      'F66F181976B8C14F6078DE84113D8E728FAC101A23C86300D795CAE9875436CC',
    ].join('');
    const m = 'E8D6BAC09B25469BEE582A7DEE9BD21890CD3F0AF4D7E19E30B3E24E657C149C';
    const result = mlKemEncapsulate('ML-KEM-512', hex(ek), { randomness: hex(m) });
    expect(result.ciphertext.subarray(0, 16).toString('hex').toUpperCase()).toBe(
      '3244E86669E69F0F238E3CD7F03EF31C',
    );
    expect(sha256(result.ciphertext)).toBe(
      'c488a267d73cd4678013c5ab026aa54c2c56298e4abe3e94d579e2a5d8b94fc4',
    );
    expect(result.sharedSecret.toString('hex').toUpperCase()).toBe(
      '6C832560DFE97BECADFBB340EE31AE868A73120806EED02839518E5627D32968',
    );
  });
});

describe.each(Object.entries(KEM_SIZES))('%s', (name, sizes) => {
  const algorithm = name as MlKemAlgorithm;

  it('has the FIPS 203 sizes and category in the catalogue and in generated keys', () => {
    const pqc = algorithmInfo(algorithm).pqc;
    expect(pqc).toMatchObject({
      parameterSet: algorithm,
      category: sizes.category,
      publicKeyBytes: sizes.publicKey,
      privateKeyBytes: sizes.privateKey,
      ciphertextBytes: sizes.ciphertext,
      sharedSecretBytes: 32,
    });
    const key = generateKey(algorithm);
    expect(key.publicKey).toHaveLength(sizes.publicKey);
    expect(key.material).toHaveLength(sizes.privateKey);
  });

  it('encapsulates to the holder of the key; a changed ciphertext or key yields another secret', () => {
    const key = generateKey(algorithm);
    const other = generateKey(algorithm);
    const { ciphertext, sharedSecret } = mlKemEncapsulate(algorithm, key.publicKey ?? Buffer.alloc(0));
    expect(ciphertext).toHaveLength(sizes.ciphertext);
    expect(sharedSecret).toHaveLength(32);
    expect(mlKemDecapsulate(algorithm, key.material, ciphertext)).toEqual(sharedSecret);
    // Implicit rejection: no error, but an unrelated (and repeatable) secret.
    const altered = flip(ciphertext, 10);
    const rejected = mlKemDecapsulate(algorithm, key.material, altered);
    expect(rejected).toHaveLength(32);
    expect(rejected.equals(sharedSecret)).toBe(false);
    expect(mlKemDecapsulate(algorithm, key.material, altered)).toEqual(rejected);
    expect(mlKemDecapsulate(algorithm, other.material, ciphertext).equals(sharedSecret)).toBe(false);
    // A fresh encapsulation gives a fresh secret.
    expect(
      mlKemEncapsulate(algorithm, key.publicKey ?? Buffer.alloc(0)).sharedSecret.equals(sharedSecret),
    ).toBe(false);
  });

  it('derives the same key pair from the same seed, and another from another seed', () => {
    const seed = Buffer.alloc(pqcSeedBytes(algorithm), 0x42);
    expect(seed).toHaveLength(64);
    const first = pqcKeyPairFromSeed(algorithm, seed);
    const second = pqcKeyPairFromSeed(algorithm, Buffer.from(seed));
    expect(second.publicKey).toEqual(first.publicKey);
    expect(second.secretKey).toEqual(first.secretKey);
    expect(pqcKeyPairFromSeed(algorithm, flip(seed)).publicKey.equals(first.publicKey)).toBe(false);
  });

  it('refuses inputs of the wrong size, an unreduced public key and a corrupted private key', () => {
    const key = generateKey(algorithm);
    const publicKey = key.publicKey ?? Buffer.alloc(0);
    expect(() => mlKemEncapsulate(algorithm, publicKey.subarray(1))).toThrow(/public key is/);
    expect(() => mlKemDecapsulate(algorithm, key.material, Buffer.alloc(sizes.ciphertext - 1))).toThrow(
      /ciphertext is/,
    );
    const unreduced = Buffer.from(publicKey);
    unreduced[0] = 0xff; // the first 12-bit coefficient becomes 0x?FF ≥ q = 3329
    unreduced[1] = (unreduced[1] ?? 0) | 0x0f;
    expect(() => mlKemEncapsulate(algorithm, unreduced)).toThrow(/Not a valid/);
    const { ciphertext } = mlKemEncapsulate(algorithm, publicKey);
    const corrupted = flip(key.material, sizes.privateKey - 40); // inside H(ek)
    expect(() => mlKemDecapsulate(algorithm, corrupted, ciphertext)).toThrow(/Not a valid/);
  });
});

describe('ML-DSA known answers (ACVP, FIPS 204)', () => {
  it('ML-DSA-44 keyGen tcId 1: seed gives the published pk and sk', () => {
    const seed = hex('4BE7A01A99A5E5BCFE3C06785D8E4EC664082227D86704E9E44862623A05C8B3');
    const { publicKey, secretKey } = pqcKeyPairFromSeed('ML-DSA-44', seed);
    expect(publicKey.subarray(0, 16).toString('hex').toUpperCase()).toBe('ADB0B33464816091F2A95977C67F085F');
    expect(sha256(publicKey)).toBe('a140495fe1cbeb25d30ecf194ee2823dde1b76bbcbdea8cac50c6365f6803060');
    expect(sha256(secretKey)).toBe('832d372e1c52dc6fe6f9d8ccb34cf3f184f16a6aa5bbebc1369d52b364034eaa');
  });

  it('ML-DSA-65 keyGen tgId 2 tcId 26: seed gives the published pk and sk', () => {
    const seed = hex('8AB6448BF58F897D528A8DE9F8E59329AC929A9CDE7EDF3E27E01BC9EF128A67');
    const { publicKey, secretKey } = pqcKeyPairFromSeed('ML-DSA-65', seed);
    expect(publicKey.subarray(0, 16).toString('hex').toUpperCase()).toBe('49DE190622B0681761A9DB044015BF81');
    expect(sha256(publicKey)).toBe('b0cc1d6464e1528a478108d4be94be4aca4c7ae69d9595b1e6b752713442022a');
    expect(sha256(secretKey)).toBe('75c9d40f0afce322f8f9ba20b7544039c04af1b7a047a8c8b7c429c71d5fc15f');
  });

  it('ML-DSA-87 keyGen tgId 3 tcId 51: seed gives the published pk and sk', () => {
    const seed = hex('5AC4D695186486C11D21F0300DBDA6F38B8D1FA07A254549B64422D44B1AAC42');
    const { publicKey, secretKey } = pqcKeyPairFromSeed('ML-DSA-87', seed);
    expect(publicKey.subarray(0, 16).toString('hex').toUpperCase()).toBe('A43D30AA48E12E950A08F7ED597EC7C8');
    expect(sha256(publicKey)).toBe('f3181985231f1541993e4a5e676636e76ca97a2d551bff73d832e9ed80217b31');
    expect(sha256(secretKey)).toBe('8f53b3e2aeb6545df71c749d0e7fc8e674b64e1e3381b882888462dbbaeb0b95');
  });
});

describe.each(Object.entries(DSA_SIZES))('%s', (name, sizes) => {
  const algorithm = name as MlDsaAlgorithm;

  it('has the FIPS 204 sizes and category in the catalogue and in generated keys', () => {
    expect(algorithmInfo(algorithm).pqc).toMatchObject({
      parameterSet: algorithm,
      category: sizes.category,
      publicKeyBytes: sizes.publicKey,
      privateKeyBytes: sizes.privateKey,
      signatureBytes: sizes.signature,
    });
    const key = generateKey(algorithm);
    expect(key.publicKey).toHaveLength(sizes.publicKey);
    expect(key.material).toHaveLength(sizes.privateKey);
  });

  it('signs and verifies; another message, signature, key or context does not verify', () => {
    const key = generateKey(algorithm);
    const other = generateKey(algorithm);
    const publicKey = key.publicKey ?? Buffer.alloc(0);
    const message = Buffer.from('post-quantum message');
    const signature = pqcSign(algorithm, key.material, message);
    expect(signature).toHaveLength(sizes.signature);
    expect(pqcVerify(algorithm, publicKey, message, signature)).toBe(true);
    expect(pqcVerify(algorithm, publicKey, flip(message), signature)).toBe(false);
    expect(pqcVerify(algorithm, publicKey, message, flip(signature, 100))).toBe(false);
    expect(pqcVerify(algorithm, publicKey, message, signature.subarray(1))).toBe(false);
    expect(pqcVerify(algorithm, other.publicKey ?? Buffer.alloc(0), message, signature)).toBe(false);
    const withContext = pqcSign(algorithm, key.material, message, { context: Buffer.from('ksp') });
    expect(pqcVerify(algorithm, publicKey, message, withContext, { context: Buffer.from('ksp') })).toBe(true);
    expect(pqcVerify(algorithm, publicKey, message, withContext)).toBe(false);
    // Hedged signing: a second signature differs and also verifies.
    const again = pqcSign(algorithm, key.material, message);
    expect(again.equals(signature)).toBe(false);
    expect(pqcVerify(algorithm, publicKey, message, again)).toBe(true);
  });

  it('derives the same key pair from the same 32-byte seed', () => {
    const seed = Buffer.alloc(pqcSeedBytes(algorithm), 7);
    expect(seed).toHaveLength(32);
    expect(pqcKeyPairFromSeed(algorithm, seed)).toEqual(pqcKeyPairFromSeed(algorithm, Buffer.from(seed)));
  });

  it('refuses keys of the wrong size and an oversized context', () => {
    const key = generateKey(algorithm);
    expect(() => pqcSign(algorithm, key.material.subarray(1), Buffer.from('m'))).toThrow(/private key is/);
    expect(() =>
      pqcVerify(algorithm, Buffer.alloc(10), Buffer.from('m'), Buffer.alloc(sizes.signature)),
    ).toThrow(/public key is/);
    expect(() => pqcSign(algorithm, key.material, Buffer.from('m'), { context: Buffer.alloc(256) })).toThrow(
      /at most 255/,
    );
  });
});
