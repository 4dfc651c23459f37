import type { api, BodyOf } from '@ksp/contracts';
import { lazyCall } from './lazy-client';

export const systemKeys = {
  status: ['system', 'status'] as const,
};

export function fetchSystemStatus() {
  return lazyCall((contract) => contract.system.status);
}

export function generateComponent(body: BodyOf<typeof api.system.initComponent>) {
  return lazyCall((contract) => contract.system.initComponent, { body });
}

export function finishInit(body: BodyOf<typeof api.system.initFinish> = {}) {
  return lazyCall((contract) => contract.system.initFinish, { body });
}

export function activateSystem(body: BodyOf<typeof api.system.activate>) {
  return lazyCall((contract) => contract.system.activate, { body });
}
