import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { App, Modal, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { api, type SchedulerRun, type SchedulerTask } from '@ksp/contracts';
import {
  createTask,
  deleteTasks,
  listTasks,
  runTaskNow,
  schedulerKeys,
  setTaskEnabled,
  taskHistory,
  updateTask,
} from '../../api/scheduler';
import { RowActions, useColumnKit, withWidths } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { bodyOf, SchedulerFormModal, type SchedulerFormValues } from './scheduler-form';
import { SwitchListPage, useSwitchList } from './switch-list';

const widths = {
  name: 160,
  cron: 140,
  next_run_at: 170,
  last_run_at: 170,
  last_result: 110,
  enabled: 80,
  updated_at: 170,
  operations: 240,
};

const stateColors = {
  pending: 'default',
  running: 'processing',
  success: 'success',
  failure: 'error',
} as const;

function StateTag({ state, testId }: { state: SchedulerRun['state']; testId?: string }) {
  const t = useT();
  return (
    <Tag color={stateColors[state]} data-testid={testId} data-state={state} style={{ marginInlineEnd: 0 }}>
      {t(`scheduler:states.${state}`)}
    </Tag>
  );
}

/** A task's runs (refreshed while one is queued or running), and the keys of the run picked. */
function HistoryModal({ task, onClose }: { task: SchedulerTask; onClose: () => void }) {
  const t = useT();
  const [runId, setRunId] = useState<string | null>(null);
  const history = useQuery({
    queryKey: [...schedulerKeys.history(task.id), runId],
    queryFn: () => taskHistory({ id: task.id, page: 1, page_size: 50, ...(runId ? { run_id: runId } : {}) }),
    refetchInterval: (query) =>
      query.state.data?.data.some((r) => r.state === 'pending' || r.state === 'running') ? 1000 : false,
  });
  const runs = history.data?.data ?? [];
  const columns: ColumnType<SchedulerRun>[] = [
    {
      title: t('scheduler:history.started'),
      dataIndex: 'created_at',
      render: (v: string) => formatDateTime(v),
    },
    {
      title: t('scheduler:history.trigger'),
      dataIndex: 'trigger',
      render: (v: SchedulerRun['trigger']) => t(`scheduler:triggers.${v}`),
    },
    {
      title: t('scheduler:history.state'),
      dataIndex: 'state',
      render: (v: SchedulerRun['state'], row) => (
        <StateTag state={v} testId={`scheduler-run-state-${row.id}`} />
      ),
    },
    { title: t('scheduler:history.matched'), dataIndex: 'matched', align: 'right' },
    {
      title: t('scheduler:history.rotated'),
      dataIndex: 'rotated',
      align: 'right',
      render: (v: number, row) => <span data-testid={`scheduler-run-rotated-${row.id}`}>{v}</span>,
    },
    { title: t('scheduler:history.failed'), dataIndex: 'failed', align: 'right' },
    {
      title: t('scheduler:history.backup'),
      dataIndex: 'backup_id',
      render: (v: string | null) => (v ? <Typography.Text code>{v.slice(0, 8)}</Typography.Text> : '-'),
    },
    { title: t('scheduler:history.by'), dataIndex: 'requested_by' },
    {
      title: t('scheduler:history.finished'),
      dataIndex: 'finished_at',
      render: (v: string | null) => formatDateTime(v),
    },
    {
      title: t('scheduler:history.error'),
      dataIndex: 'error',
      render: (v: string | null) => (v ? <Typography.Text type="danger">{v}</Typography.Text> : '-'),
    },
  ];
  return (
    <Modal
      open
      title={t('scheduler:history.title', { name: task.name })}
      onCancel={onClose}
      footer={null}
      width={1000}
      destroyOnHidden
    >
      <Table<SchedulerRun>
        rowKey="id"
        size="small"
        loading={history.isLoading}
        dataSource={runs}
        columns={columns}
        pagination={false}
        scroll={{ x: 900 }}
        locale={{ emptyText: t('scheduler:history.empty') }}
        onRow={(row) => ({ onClick: () => setRunId(row.id), style: { cursor: 'pointer' } })}
        rowClassName={(row) => (row.id === runId ? 'ant-table-row-selected' : '')}
        data-testid="scheduler-history"
      />
      {runId && (
        <>
          <Typography.Title level={5} style={{ marginTop: 16 }}>
            {t('scheduler:history.keys')}
          </Typography.Title>
          <Table
            rowKey="key_id"
            size="small"
            dataSource={history.data?.keys ?? []}
            pagination={{ pageSize: 20 }}
            data-testid="scheduler-run-keys"
            columns={[
              { title: t('scheduler:history.key'), dataIndex: 'key_name' },
              {
                title: t('scheduler:history.result'),
                dataIndex: 'result',
                render: (v: 'pending' | 'rotated' | 'failed') => t(`scheduler:history.keyResults.${v}`),
              },
              {
                title: t('scheduler:history.version'),
                dataIndex: 'version',
                render: (v: number | null) => v ?? '-',
              },
              {
                title: t('scheduler:history.error'),
                dataIndex: 'error',
                render: (v: string | null) => v ?? '-',
              },
            ]}
          />
        </>
      )}
    </Modal>
  );
}

/** Settings › scheduler: key-rotation tasks, with run now, enable/disable and the run history. */
export default function SchedulerPage() {
  const t = useT();
  const kit = useColumnKit<SchedulerTask>();
  const { message } = App.useApp();
  const confirmDelete = useConfirmDelete();
  const canWrite = useCanCall(api.scheduler.create);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<SchedulerTask | null>(null);
  const [watching, setWatching] = useState<SchedulerTask | null>(null);
  const { refresh, save, enabledColumn } = useSwitchList<SchedulerTask>(schedulerKeys.all, (row, enabled) =>
    setTaskEnabled(row.id, enabled),
  );

  const runNow = async (row: SchedulerTask) => {
    try {
      await runTaskNow(row.id);
      void message.success(t('scheduler:queued', { name: row.name }));
      setWatching(row);
    } catch {
      // Shown by the API client.
    } finally {
      await refresh();
    }
  };

  const remove = (row: SchedulerTask) =>
    confirmDelete({
      title: t('scheduler:deleteConfirm', { name: row.name }),
      remove: () => deleteTasks([row.id]),
      refresh,
      testId: 'scheduler-confirm-delete',
    });

  const columns: ColumnType<SchedulerTask>[] = [
    kit.name(t('scheduler:fields.name'), 'name'),
    {
      title: t('scheduler:fields.cron'),
      dataIndex: 'cron',
      render: (cron: string, row) => (
        <Tooltip title={row.interval ? t(`scheduler:periods.${row.interval.period}`) : undefined}>
          <Typography.Text code data-testid={`scheduler-cron-${row.name}`}>
            {cron}
          </Typography.Text>
        </Tooltip>
      ),
    },
    {
      title: t('scheduler:fields.nextRun'),
      dataIndex: 'next_run_at',
      render: (v: string | null, row) => (
        <span data-testid={`scheduler-next-${row.name}`}>{v ? formatDateTime(v) : '-'}</span>
      ),
    },
    {
      title: t('scheduler:fields.lastRun'),
      dataIndex: 'last_run_at',
      render: (v: string | null) =>
        v ? formatDateTime(v) : <Typography.Text type="secondary">{t('scheduler:never')}</Typography.Text>,
    },
    {
      title: t('scheduler:fields.lastResult'),
      dataIndex: 'last_result',
      render: (v: SchedulerTask['last_result'], row) =>
        v ? (
          <Tooltip title={row.last_error ?? undefined}>
            <StateTag state={v} testId={`scheduler-result-${row.name}`} />
          </Tooltip>
        ) : (
          '-'
        ),
    },
    enabledColumn(t('scheduler:fields.enabled'), canWrite, 'scheduler-enabled'),
    kit.time(t('scheduler:fields.updatedAt'), 'updated_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('scheduler:actions.runNow'),
            onClick: () => void runNow(row),
            show: canWrite,
            testId: `scheduler-run-${row.name}`,
          },
          {
            label: t('scheduler:actions.history'),
            onClick: () => setWatching(row),
            testId: `scheduler-history-${row.name}`,
          },
          kit.edit(() => setEditing(row), `scheduler-edit-${row.name}`, canWrite),
          kit.remove(() => remove(row), `scheduler-delete-${row.name}`, canWrite),
        ]}
      />
    )),
  ];

  return (
    <SwitchListPage
      intro={t('scheduler:intro')}
      readOnly={t('scheduler:readOnly')}
      canWrite={canWrite}
      testId="scheduler-intro"
    >
      <ListPage<SchedulerTask>
        title={t('scheduler:title')}
        queryKey={schedulerKeys.all}
        fetchPage={({ page, page_size }) => listTasks({ page, page_size })}
        rowKey="id"
        columns={withWidths(columns, widths)}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="scheduler-add" />}
        onDelete={canWrite ? (ids) => deleteTasks(ids) : undefined}
        testId="scheduler"
        rowTestId={(row) => `scheduler-row-${row.name}`}
      />
      {creating && (
        <SchedulerFormModal
          open
          onSubmit={(values: SchedulerFormValues) => save(() => createTask(bodyOf(values)))}
          onClose={() => setCreating(false)}
        />
      )}
      {editing && (
        <SchedulerFormModal
          key={editing.id}
          open
          stored={editing}
          onSubmit={(values: SchedulerFormValues) =>
            save(() => updateTask({ id: editing.id, ...bodyOf(values) }))
          }
          onClose={() => setEditing(null)}
        />
      )}
      {watching && (
        <HistoryModal
          task={watching}
          onClose={() => {
            setWatching(null);
            // The runs watched may have changed the task's last run and result.
            void refresh();
          }}
        />
      )}
    </SwitchListPage>
  );
}
