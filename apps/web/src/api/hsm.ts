import { api, type HsmCertificates, type HsmTarget } from '@ksp/contracts';
import { call } from './client';

export const hsmKeys = {
  all: ['hsm'] as const,
  status: ['hsm', 'status'] as const,
};

export function fetchHsmStatus() {
  return call(api.hsm.status, {});
}

/** The page shows the server's refusal itself (the field it names), hence `silent`. */
export function bindHsm(body: HsmTarget) {
  return call(api.hsm.bind, { body }, { silent: true });
}

export function unbindHsm() {
  return call(api.hsm.unbind, { body: {} });
}

/** A round trip on the given settings, or on the stored ones when `body` is empty. */
export function testHsm(body: Partial<HsmTarget>) {
  return call(api.hsm.test, { body }, { silent: true });
}

export function saveHsmCertificates(body: HsmCertificates) {
  return call(api.hsm.certificates, { body }, { silent: true });
}
