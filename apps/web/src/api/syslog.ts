import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

export const syslogKeys = {
  all: ['syslog'] as const,
};

export function listSyslog(query: QueryOf<typeof api.syslog.list>) {
  return call(api.syslog.list, { query });
}

/** The form shows the server's refusal itself (beside the field it names), hence `silent`. */
export function createSyslog(body: BodyOf<typeof api.syslog.create>) {
  return call(api.syslog.create, { body }, { silent: true });
}

/** `silent` for the form; the table's enabled switch passes `false` to have a refusal shown. */
export function updateSyslog(body: BodyOf<typeof api.syslog.update>, silent = true) {
  return call(api.syslog.update, { body }, { silent });
}

export function deleteSyslog(ids: string[]) {
  return call(api.syslog.delete, { body: { ids } });
}

/** The page shows a failed test in its result area, hence `silent`. */
export function testSyslog(id: string) {
  return call(api.syslog.test, { body: { id } }, { silent: true });
}
