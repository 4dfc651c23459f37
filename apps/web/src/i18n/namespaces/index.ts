/**
 * The console's translation namespaces, one line each: a module exporting `{ en, zh }` under
 * the namespace's name, `zh` a loader of the Chinese (typed `Catalogue<typeof en>`), which an
 * English console never fetches. `resources.ts` derives the catalogues and the namespace list
 * from these exports; tsc and `i18n.test.ts` check that each Chinese catalogue has exactly its
 * English keys.
 */
export { access } from './access';
export { alarm } from './alarm';
export { account } from './account';
export { auth } from './auth';
export { backup } from './backup';
export { cert } from './cert';
export { common } from './common';
export { config } from './config';
export { credential } from './credential';
export { dashboard } from './dashboard';
export { errors } from './errors';
export { hsm } from './hsm';
export { kadp } from './kadp';
export { keys } from './keys';
export { kmip } from './kmip';
export { labels } from './labels';
export { layout } from './layout';
export { license } from './license';
export { log } from './log';
export { menu } from './menu';
export { product } from './product';
export { quantum } from './quantum';
export { remoteAdd } from './remote-add';
export { scheduler } from './scheduler';
export { sshServer } from './ssh-server';
export { syslog } from './syslog';
export { tdeClient } from './tde-client';
export { tdeDatabase } from './tde-database';
export { system } from './system';
export { tdePolicy } from './tde-policy';
