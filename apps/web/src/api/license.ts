import { api } from '@ksp/contracts';
import { call } from './client';

export const licenseKeys = {
  all: ['license'] as const,
  list: ['license', 'list'] as const,
};

export function fetchLicenses() {
  return call(api.license.list, {});
}

/** The activation dialog shows the server's refusal itself (the field it names), hence `silent`. */
export function activateLicense(license: string) {
  return call(api.license.activate, { body: { license } }, { silent: true });
}

export function deleteLicense(rowId: string) {
  return call(api.license.delete, { body: { row_id: rowId } });
}

export function fetchLockdata() {
  return call(api.license.lockdata, {});
}
