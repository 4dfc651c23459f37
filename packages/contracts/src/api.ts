import type { CallDef } from './call.js';
import { systemCalls } from './calls/system.js';
import { tokenCalls, userCalls } from './calls/user.js';
import { configCalls } from './calls/config.js';
import { domainCalls } from './calls/domain.js';
import { dashboardCalls } from './calls/dashboard.js';
import { roleCalls } from './calls/role.js';
import { passwordPolicyCalls } from './calls/password-policy.js';
import { registrationTokenCalls } from './calls/registration-token.js';
import { ldapCalls } from './calls/ldap.js';
import { keyCalls } from './calls/key.js';
import { cryptoCalls } from './calls/crypto.js';
import { certCalls } from './calls/cert.js';
import { quantumCalls } from './calls/quantum.js';
import { logCalls } from './calls/log.js';
import { syslogCalls } from './calls/syslog.js';
import { alarmCalls } from './calls/alarm.js';
import { clientLogCalls } from './calls/client-log.js';
import { licenseCalls } from './calls/license.js';
import { hsmCalls } from './calls/hsm.js';
import { credentialCalls } from './calls/credential.js';
import { sshServerCalls } from './calls/ssh-server.js';
import { clientCalls } from './calls/client.js';
import { rdmPolicyCalls, tdePolicyCalls } from './calls/tde-policy.js';
import { rdmClientCalls, tdeClientCalls } from './calls/tde-client.js';
import { schedulerCalls } from './calls/scheduler.js';
import { backupCalls, backupKeyCalls } from './calls/backup.js';
import { productCalls } from './calls/product.js';
import { remoteAddCalls } from './calls/remote-add.js';
import { kadpOpsCalls } from './calls/kadp-ops.js';
import { kmipCalls } from './calls/kmip.js';
import { tdeDatabaseCalls } from './calls/tde-database.js';

/** Every call, grouped by area: the server registers these and the console calls them. */
export const api = {
  system: systemCalls,
  user: userCalls,
  token: tokenCalls,
  config: configCalls,
  domain: domainCalls,
  dashboard: dashboardCalls,
  role: roleCalls,
  passwordPolicy: passwordPolicyCalls,
  registrationToken: registrationTokenCalls,
  ldap: ldapCalls,
  key: keyCalls,
  crypto: cryptoCalls,
  cert: certCalls,
  quantum: quantumCalls,
  log: logCalls,
  clientLog: clientLogCalls,
  syslog: syslogCalls,
  alarm: alarmCalls,
  license: licenseCalls,
  hsm: hsmCalls,
  credential: credentialCalls,
  sshServer: sshServerCalls,
  client: clientCalls,
  tdePolicy: tdePolicyCalls,
  rdmPolicy: rdmPolicyCalls,
  tdeClient: tdeClientCalls,
  rdmClient: rdmClientCalls,
  scheduler: schedulerCalls,
  backupKey: backupKeyCalls,
  backup: backupCalls,
  product: productCalls,
  remoteAdd: remoteAddCalls,
  kadpOps: kadpOpsCalls,
  kmip: kmipCalls,
  tdeDatabase: tdeDatabaseCalls,
} as const;

/** Every call of the API, in area order: what the server registers and the tests sweep. */
const callAreas: readonly Record<string, CallDef>[] = Object.values(api);
export const allCalls: readonly CallDef[] = callAreas.flatMap((area) => Object.values(area));
