import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api, Code, type SchedulerRun, type SchedulerTask } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { saveSignedIn } from '../../api/session';
import { envelope, signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import SchedulerPage from './scheduler-page';
import { answerWith, signedInEachTest } from '../../test-session';

const PATH = '/console/setting/scheduler';

const task: SchedulerTask = {
  id: '0190d5a4-0000-7000-8000-000000000001',
  name: 'weekly',
  description: '',
  type: 'key_rotation',
  cron: '0 3 * * 1',
  interval: { period: 'week', hour: 3, minute: 0, weekdays: [1] },
  start_at: null,
  end_at: null,
  enabled: true,
  query: {},
  next_run_at: '2026-03-02T03:00:00.000Z',
  last_run_at: null,
  last_result: null,
  last_error: null,
  created_by: 'admin',
  created_at: '2026-03-01T00:00:00.000Z',
  updated_at: '2026-03-01T00:00:00.000Z',
};

const run: SchedulerRun = {
  id: '0190d5a4-0000-7000-8000-0000000000aa',
  task_id: task.id,
  task_name: task.name,
  trigger: 'manual',
  state: 'success',
  requested_by: 'admin',
  node: 'ksp-1',
  backup_id: null,
  matched: 2,
  rotated: 2,
  failed: 0,
  error: null,
  created_at: '2026-03-01T00:01:00.000Z',
  started_at: '2026-03-01T00:01:00.000Z',
  finished_at: '2026-03-01T00:01:01.000Z',
};

function serve(opts: { refuseCreate?: string } = {}) {
  const tasks: SchedulerTask[] = [task];
  return answerWith((config: InternalAxiosRequestConfig) => {
    const url = config.url ?? '';
    if (url.startsWith(api.scheduler.list.path)) return envelope({ data: tasks, total: tasks.length });
    if (url === api.scheduler.create.path) {
      if (opts.refuseCreate) return envelope(null, Code.INVALID, opts.refuseCreate);
      const body = JSON.parse(String(config.data)) as { name: string };
      tasks.push({
        ...task,
        id: '0190d5a4-0000-7000-8000-000000000002',
        name: body.name,
        cron: '30 4 * * 1,5',
      });
      return envelope(tasks.at(-1));
    }
    if (url === api.scheduler.runNow.path) return envelope({ ...run, state: 'pending', rotated: 0 });
    if (url.startsWith(api.scheduler.history.path)) return envelope({ data: [run], total: 1, keys: [] });
    if (url === api.scheduler.disable.path) return envelope({ ...task, enabled: false, next_run_at: null });
    return envelope(null, Code.NOT_FOUND, 'Not served');
  });
}

signedInEachTest({ permissions: ['scheduler:read', 'scheduler:write'] });

const open = async () => {
  renderPage(PATH, PATH, <SchedulerPage />);
  await screen.findByTestId('scheduler-cron-weekly');
};
const sent = (seen: InternalAxiosRequestConfig[], url: string) => seen.filter((c) => c.url === url);

describe('scheduler page', () => {
  it('lists tasks with their cron and next run', async () => {
    serve();
    await open();
    expect(screen.getByTestId('scheduler-cron-weekly').textContent).toBe('0 3 * * 1');
    expect(screen.getByTestId('scheduler-next-weekly').textContent).not.toBe('-');
  });

  it('builds the interval, shows its cron, and sends it', async () => {
    const seen = serve();
    await open();
    fireEvent.click(screen.getByTestId('scheduler-add'));
    fireEvent.change(await screen.findByTestId('scheduler-name'), { target: { value: 'twice' } });
    expect((await screen.findByTestId('scheduler-compiled-cron')).textContent).toContain('0 3 * * 1');
    fireEvent.click(screen.getByText('Friday'));
    fireEvent.change(screen.getByTestId('scheduler-hour'), { target: { value: '4' } });
    // A minute out of range is named, stays as typed and stops the save.
    fireEvent.change(screen.getByTestId('scheduler-minute'), { target: { value: '75' } });
    fireEvent.click(screen.getByTestId('scheduler-form-ok'));
    expect(await screen.findByText('Minute must be a whole number from 0 to 59')).toBeTruthy();
    expect(screen.getByTestId<HTMLInputElement>('scheduler-minute').value).toBe('75');
    expect(sent(seen, api.scheduler.create.path)).toHaveLength(0);
    fireEvent.change(screen.getByTestId('scheduler-minute'), { target: { value: '30' } });
    await waitFor(() =>
      expect(screen.getByTestId('scheduler-compiled-cron').textContent).toContain('30 4 * * 1,5'),
    );
    fireEvent.click(screen.getByTestId('scheduler-form-ok'));
    await waitFor(() => expect(sent(seen, api.scheduler.create.path)).toHaveLength(1));
    expect(JSON.parse(String(sent(seen, api.scheduler.create.path)[0]!.data))).toMatchObject({
      name: 'twice',
      interval: { period: 'week', hour: 4, minute: 30, weekdays: [1, 5] },
      query: {},
      enabled: true,
    });
  });

  it('shows the server refusal in the form', async () => {
    serve({ refuseCreate: "cron: minute: '61' is not between 0 and 59" });
    await open();
    fireEvent.click(screen.getByTestId('scheduler-add'));
    fireEvent.change(await screen.findByTestId('scheduler-name'), { target: { value: 'bad' } });
    fireEvent.click(screen.getByTestId('scheduler-form-ok'));
    expect((await screen.findByTestId('scheduler-form-error')).textContent).toContain("minute: '61'");
  });

  it('runs a task now and opens its history', async () => {
    const seen = serve();
    await open();
    fireEvent.click(screen.getByTestId('scheduler-run-weekly'));
    await waitFor(() => expect(sent(seen, api.scheduler.runNow.path)).toHaveLength(1));
    expect((await screen.findByTestId(`scheduler-run-state-${run.id}`)).textContent).toBe('Succeeded');
    expect(screen.getByTestId(`scheduler-run-rotated-${run.id}`).textContent).toBe('2');
  });

  it('offers no changes without scheduler:write', async () => {
    saveSignedIn(signedInFixture({ permissions: ['scheduler:read'] }));
    serve();
    await open();
    expect(screen.queryByTestId('scheduler-add')).toBeNull();
    expect(screen.queryByTestId('scheduler-run-weekly')).toBeNull();
    expect(screen.getByTestId('scheduler-history-weekly')).toBeTruthy();
  });
});
