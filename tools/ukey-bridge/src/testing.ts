/**
 * What other workspaces' tests use: the bridge over a SoftHSM2 token, and the self-signed
 * certificates openssl makes for them.
 */
export { SOFTHSM_MODULE, createEmptyTestToken, createTestToken, softhsmAvailable } from './softhsm-token.js';
export type { TestToken } from './softhsm-token.js';
export { spawnBridge } from './test-bridge.js';
export type { SpawnedBridge } from './test-bridge.js';
export { sm2DecryptWith } from './sm2.js';
export { makeSelfSignedEc, newEcKeyArgs, selfSignedEcArgs } from './self-signed.js';
export type { SelfSignedEc } from './self-signed.js';
