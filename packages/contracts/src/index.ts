export * from './codes.js';
export * from './messages/index.js';
export * from './permissions.js';
export * from './areas.js';
export * from './menu/index.js';
export * from './common.js';
export * from './call.js';
export * from './calls/system.js';
export * from './calls/user.js';
export * from './calls/config.js';
export * from './calls/domain.js';
export * from './calls/dashboard.js';
export * from './calls/access-common.js';
export * from './calls/role.js';
export * from './calls/password-policy.js';
export * from './calls/registration-token.js';
export * from './calls/ldap.js';
export * from './calls/key.js';
export * from './ip.js';
export * from './algorithms.js';
export * from './rules/key-lifecycle.js';
export * from './rules/text.js';

export * from './api.js';
export * from './served.js';

export const PRODUCT_VERSION = 'v1.9.0';
export const VERSION_HEADER = 'version';
export const TOKEN_HEADER = 'token';
