import { algorithmInfo, Usage, type AlgorithmId } from '@ksp/contracts';

/** A usage mask each algorithm accepts, and how to exercise it through the crypto API. */
export function usageFor(alg: AlgorithmId): number {
  const family = algorithmInfo(alg).family;
  if (family === 'AES' || family === 'SM4')
    return Usage.Encrypt | Usage.Decrypt | (family === 'AES' ? Usage.WrapKey | Usage.UnwrapKey : 0);
  if (family === 'HMAC') return Usage.MacGenerate | Usage.MacVerify;
  if (family === 'ML-KEM') return Usage.KeyAgreement;
  return Usage.Sign | Usage.Verify;
}
