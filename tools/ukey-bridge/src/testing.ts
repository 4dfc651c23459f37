/** What other workspaces' tests use to drive the bridge over a SoftHSM2 token. */
export { SOFTHSM_MODULE, createEmptyTestToken, createTestToken, softhsmAvailable } from './softhsm-token.js';
export type { TestToken } from './softhsm-token.js';
export { spawnBridge } from './test-bridge.js';
export type { SpawnedBridge } from './test-bridge.js';
export { sm2DecryptWith } from './sm2.js';
