import { softhsmAvailable } from '@ksp/ukey-bridge/testing';

export { SOFTHSM_MODULE, createEmptyTestToken, type TestToken } from '@ksp/ukey-bridge/testing';

// SoftHSM2 is a required peer of the suites that import this file (Debian softhsm2 and opensc), never skipped.
if (!softhsmAvailable()) throw new Error('SoftHSM2 and OpenSC are required (Debian softhsm2, opensc)');
