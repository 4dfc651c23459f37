import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

export const schedulerKeys = {
  all: ['scheduler'] as const,
  history: (id: string) => ['scheduler', 'history', id] as const,
};

export function listTasks(query: QueryOf<typeof api.scheduler.list>) {
  return call(api.scheduler.list, { query });
}

/** The form shows the server's refusal itself, hence `silent`. */
export function createTask(body: BodyOf<typeof api.scheduler.create>) {
  return call(api.scheduler.create, { body }, { silent: true });
}

export function updateTask(body: BodyOf<typeof api.scheduler.update>) {
  return call(api.scheduler.update, { body }, { silent: true });
}

export function deleteTasks(ids: string[]) {
  return call(api.scheduler.delete, { body: { ids } });
}

export function setTaskEnabled(id: string, enabled: boolean) {
  return call(enabled ? api.scheduler.enable : api.scheduler.disable, { body: { id } });
}

export function runTaskNow(id: string) {
  return call(api.scheduler.runNow, { body: { id } });
}

export function taskHistory(query: QueryOf<typeof api.scheduler.history>) {
  return call(api.scheduler.history, { query });
}
