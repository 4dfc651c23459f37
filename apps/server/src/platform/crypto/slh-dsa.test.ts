import { describe, expect, it } from 'vitest';
import { algorithmInfo } from '@ksp/contracts';
import { generateKey } from './generate.js';
import { type SlhDsaAlgorithm, pqcKeyPairFromSeed, pqcSign, pqcVerify } from './post-quantum.js';

/*
 * SLH-DSA (FIPS 205), all twelve parameter sets.
 *
 * Known answers: the first ACVP keyGen case of each set (usnistgov/ACVP-Server
 * gen-val/json-files/SLH-DSA-keyGen-FIPS205, vsId 53): SK.seed, SK.prf and PK.seed give
 * the published PK.root, so pk = PK.seed || PK.root and sk = SK.seed || SK.prf || pk.
 *
 * Signing in JavaScript is slow for the "s" sets (SHAKE-192s about 40 s), so the
 * sign/verify round trip runs on the sets that sign in about two seconds or less;
 * every set still has its key generation pinned to NIST's answer, its sizes checked
 * against FIPS 205 Table 2 and its verifier exercised.
 */

const hex = (text: string) => Buffer.from(text, 'hex');
const flip = (bytes: Buffer, index = 0) => {
  const copy = Buffer.from(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
};

interface KeyGenVector {
  algorithm: SlhDsaAlgorithm;
  tcId: number;
  skSeed: string;
  skPrf: string;
  pkSeed: string;
  publicKey: string;
}

const KEYGEN: KeyGenVector[] = [
  {
    algorithm: 'SLH-DSA-SHA2-128S',
    tcId: 1,
    skSeed: 'AA9CC7DCA491FC86BCB15A709A15E9B3',
    skPrf: '905C800B6E2FB9B54B6B050EE5E4DE9A',
    pkSeed: 'FA5464D1C661FED38B2A51CA3EAE71BA',
    publicKey: 'FA5464D1C661FED38B2A51CA3EAE71BACAE3D1865215E3D3850E8C1B8292BF42',
  },
  {
    algorithm: 'SLH-DSA-SHAKE-128S',
    tcId: 11,
    skSeed: 'ECD0A05696C2EC6BFE85B8B1B2022486',
    skPrf: 'BFD8732B1A42CEA236E9822AA9E724E6',
    pkSeed: '37D664792198176C12E8121CCF69E684',
    publicKey: '37D664792198176C12E8121CCF69E684FCF6FFE2A04243DC3E8ED3EE6E44CDEF',
  },
  {
    algorithm: 'SLH-DSA-SHA2-128F',
    tcId: 21,
    skSeed: 'E2BDAA37C8CFFE5E8D5676C23267890C',
    skPrf: '31441758F573285881CDC82AB911DD84',
    pkSeed: '72DC8D26DF6EF708F4C41AF9FD04B65A',
    publicKey: '72DC8D26DF6EF708F4C41AF9FD04B65A8927927229891D47A60D67ECEF3D2C17',
  },
  {
    algorithm: 'SLH-DSA-SHAKE-128F',
    tcId: 31,
    skSeed: 'BBC74306F75DC2DAF7372B3C9841A4D6',
    skPrf: '852C17B459F1692B8E9A1A0DACE5BA26',
    pkSeed: '380C99304A0DDD32F344B95144E1FDEF',
    publicKey: '380C99304A0DDD32F344B95144E1FDEF60BBC2340E08770FB41A80A76CB08E34',
  },
  {
    algorithm: 'SLH-DSA-SHA2-192S',
    tcId: 45,
    skSeed: '92EBC56A2F5CC3D215EDB612E3000D4510824519ECC44400',
    skPrf: '6F55F41CF5FF0211B861A1BA146FDFA21C7119F278C3C2A9',
    pkSeed: '305BD9473341E49C2C1E0A82574331583B12A4B94523895C',
    publicKey:
      '305BD9473341E49C2C1E0A82574331583B12A4B94523895CEE68A8AEAB38FECAAB07BA49FBD722380490920208483B6A',
  },
  {
    algorithm: 'SLH-DSA-SHAKE-192S',
    tcId: 51,
    skSeed: '2D5748B1ACDA8299E2E905545D2E66DFCEC02461BC3673DD',
    skPrf: '9D830416B1B82A665DD435A3F3A8E2124DF59A0E2BC2EC73',
    pkSeed: '633FF65C724AE17045C094617549081C940F2EF4D4A10E75',
    publicKey:
      '633FF65C724AE17045C094617549081C940F2EF4D4A10E7559C7503FE1E96FB67B0E32ACDCF712FBEF610F8D21DAAC86',
  },
  {
    algorithm: 'SLH-DSA-SHA2-192F',
    tcId: 61,
    skSeed: '942DD588B0E0636060B1023BAF1DF36002B9D3C7256904F9',
    skPrf: '48596F0F2F17505585F022423433B3A3EF50977B98B01E8E',
    pkSeed: '3E1D7DCF880C2EA3C8872122A996D5D6233BDFBD57FA641F',
    publicKey:
      '3E1D7DCF880C2EA3C8872122A996D5D6233BDFBD57FA641FAD3C81BBE6778B1F788195131B3FCA91854FF3B075BF0009',
  },
  {
    algorithm: 'SLH-DSA-SHAKE-192F',
    tcId: 71,
    skSeed: '3B7889D254F5AD87882DACBF3C58495667401601EC473979',
    skPrf: '7E935CBC27F3D7CD627B611CBEF7546C7F27751E18155CC4',
    pkSeed: '266B6FB56BD0D922E0482700A4280CC1F07052804A8F46FD',
    publicKey:
      '266B6FB56BD0D922E0482700A4280CC1F07052804A8F46FDED3954BA0A9DA45D0D18867437777F60211BB9CD03A60D4B',
  },
  {
    algorithm: 'SLH-DSA-SHA2-256S',
    tcId: 81,
    skSeed: 'AE6CA8664EC0B9179D4E33C4DEFE01FCD589F60BA4502FE7416F2ACD96E139F1',
    skPrf: '3FDA2069147F44EABD5BBF29C74A20CB0F0CC2A12BAB5834B773530AF504900A',
    pkSeed: '134D5ED3C60B46344A84A45D4683B1AC55FB22886BA9478EA9CA93F27B9AA2C2',
    publicKey:
      '134D5ED3C60B46344A84A45D4683B1AC55FB22886BA9478EA9CA93F27B9AA2C27C5C9908F086E57956F85DE84B438EF1F082CD176DFF3C5B8BE710BC8699A143',
  },
  {
    algorithm: 'SLH-DSA-SHAKE-256S',
    tcId: 91,
    skSeed: 'A653918FA557B5250D11E96A74F5D8C62B5FF67152ACF227AAF4BF5211AA600E',
    skPrf: '961B4E679CEB9D4E24DF86ED22F405D8EDE5623672F4737FC2FB65F8BF3B556C',
    pkSeed: '315A5E795B701676E6B8309C89CC6AD0C3D69FF4F7F432DC61329FBB1BE6069F',
    publicKey:
      '315A5E795B701676E6B8309C89CC6AD0C3D69FF4F7F432DC61329FBB1BE6069F0887B1A8F1B3A8B9770A0871630E46DD0479C5BD123E8EEB6BE70F2999C466A1',
  },
  {
    algorithm: 'SLH-DSA-SHA2-256F',
    tcId: 103,
    skSeed: '6D510CA277306250C074BF2823953EB0F7476C07225CC89EDFD115147CDB67EE',
    skPrf: '913C5AE5B22C1AF32F9E07C3219738608A49EE449280EFB632C518E88FC5BA3C',
    pkSeed: '5C4D13EBCD9C961C35A930746A16A518617CE13E396D6278980FB7A64CE5EF77',
    publicKey:
      '5C4D13EBCD9C961C35A930746A16A518617CE13E396D6278980FB7A64CE5EF7780E032D13C19EF8116979FB0B08B1D83950FF801B837415F653C1283C4D6916F',
  },
  {
    algorithm: 'SLH-DSA-SHAKE-256F',
    tcId: 111,
    skSeed: 'D50F77713CF59193FE5F10B8AAF1876B0D3E7E4181ED3FAE3468762698017584',
    skPrf: '36C22B81940403157446D44F04C09FD28DF72C6D4021B271544055783081B7C0',
    pkSeed: '46D2AC50751A0C71EC850BB7D16A679A66901EEE05389D4615940EFD89C0182F',
    publicKey:
      '46D2AC50751A0C71EC850BB7D16A679A66901EEE05389D4615940EFD89C0182FDEBCFBF3527CC768C5EC6CB5B6CC10A674390745D8612D0920187DF658D3B7EF',
  },
];

/* FIPS 205 Table 2: n (bytes) and signature size. */
const SIZES: Record<SlhDsaAlgorithm, { n: number; signature: number; category: 1 | 3 | 5 }> = {
  'SLH-DSA-SHA2-128S': { n: 16, signature: 7856, category: 1 },
  'SLH-DSA-SHAKE-128S': { n: 16, signature: 7856, category: 1 },
  'SLH-DSA-SHA2-128F': { n: 16, signature: 17088, category: 1 },
  'SLH-DSA-SHAKE-128F': { n: 16, signature: 17088, category: 1 },
  'SLH-DSA-SHA2-192S': { n: 24, signature: 16224, category: 3 },
  'SLH-DSA-SHAKE-192S': { n: 24, signature: 16224, category: 3 },
  'SLH-DSA-SHA2-192F': { n: 24, signature: 35664, category: 3 },
  'SLH-DSA-SHAKE-192F': { n: 24, signature: 35664, category: 3 },
  'SLH-DSA-SHA2-256S': { n: 32, signature: 29792, category: 5 },
  'SLH-DSA-SHAKE-256S': { n: 32, signature: 29792, category: 5 },
  'SLH-DSA-SHA2-256F': { n: 32, signature: 49856, category: 5 },
  'SLH-DSA-SHAKE-256F': { n: 32, signature: 49856, category: 5 },
};

const ROUND_TRIP = new Set<SlhDsaAlgorithm>([
  'SLH-DSA-SHA2-128F',
  'SLH-DSA-SHA2-192F',
  'SLH-DSA-SHA2-256F',
  'SLH-DSA-SHAKE-128F',
  'SLH-DSA-SHA2-128S',
]);

it('covers all twelve FIPS 205 parameter sets', () => {
  expect(new Set(KEYGEN.map((vector) => vector.algorithm)).size).toBe(12);
  expect(Object.keys(SIZES)).toHaveLength(12);
});

const message = (algorithm: SlhDsaAlgorithm) => Buffer.from(`message for ${algorithm}`);

describe.each(KEYGEN)('$algorithm', (vector) => {
  const { algorithm } = vector;
  const sizes = SIZES[algorithm];

  it(`keyGen matches ACVP tcId ${vector.tcId} and the FIPS 205 sizes`, () => {
    const seed = hex(vector.skSeed + vector.skPrf + vector.pkSeed);
    const { publicKey, secretKey } = pqcKeyPairFromSeed(algorithm, seed);
    expect(publicKey.toString('hex').toUpperCase()).toBe(vector.publicKey);
    expect(secretKey.toString('hex').toUpperCase()).toBe(vector.skSeed + vector.skPrf + vector.publicKey);
    expect(publicKey).toHaveLength(2 * sizes.n);
    expect(secretKey).toHaveLength(4 * sizes.n);
    expect(algorithmInfo(algorithm).pqc).toMatchObject({
      category: sizes.category,
      publicKeyBytes: 2 * sizes.n,
      privateKeyBytes: 4 * sizes.n,
      signatureBytes: sizes.signature,
    });
    // A forged signature of the right size, and one of the wrong size, are refused.
    expect(pqcVerify(algorithm, publicKey, message(algorithm), Buffer.alloc(sizes.signature, 0x5a))).toBe(
      false,
    );
    expect(pqcVerify(algorithm, publicKey, message(algorithm), Buffer.alloc(sizes.signature - 1))).toBe(
      false,
    );
  });
});

describe.each(KEYGEN.filter((vector) => ROUND_TRIP.has(vector.algorithm)))('$algorithm', (vector) => {
  const { algorithm } = vector;
  const sizes = SIZES[algorithm];

  it('generates a key that signs and verifies; tampering or another key fails', () => {
    const key = generateKey(algorithm);
    const publicKey = key.publicKey ?? Buffer.alloc(0);
    expect(publicKey).toHaveLength(2 * sizes.n);
    const signature = pqcSign(algorithm, key.material, message(algorithm));
    expect(signature).toHaveLength(sizes.signature);
    expect(pqcVerify(algorithm, publicKey, message(algorithm), signature)).toBe(true);
    expect(pqcVerify(algorithm, publicKey, flip(message(algorithm)), signature)).toBe(false);
    expect(pqcVerify(algorithm, publicKey, message(algorithm), flip(signature, sizes.signature - 1))).toBe(
      false,
    );
    expect(pqcVerify(algorithm, hex(vector.publicKey), message(algorithm), signature)).toBe(false);
  });
});
