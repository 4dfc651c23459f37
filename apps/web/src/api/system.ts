import { api, type BodyOf } from '@ksp/contracts';
import { call } from './client';

export const systemKeys = {
  status: ['system', 'status'] as const,
};

export function fetchSystemStatus() {
  return call(api.system.status);
}

export function generateComponent(body: BodyOf<typeof api.system.initComponent>) {
  return call(api.system.initComponent, { body });
}

export function finishInit(body: BodyOf<typeof api.system.initFinish> = {}) {
  return call(api.system.initFinish, { body });
}

export function activateSystem(body: BodyOf<typeof api.system.activate>) {
  return call(api.system.activate, { body });
}
