import { useState } from 'react';
import { Alert, Flex, Tag, Tooltip, Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { api, type DataOf, type SyslogServer } from '@ksp/contracts';
import {
  createSyslog,
  deleteSyslog,
  listSyslog,
  syslogKeys,
  testSyslog,
  updateSyslog,
} from '../../api/syslog';
import { RowActions, useColumnKit, withWidths } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { formatThousands } from '../../components/number-format';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { SyslogFormModal } from './syslog-form';
import { createBody, updateBody, type SyslogFormValues } from './syslog-values';
import { SwitchListPage, useSwitchList } from './switch-list';

type TestAnswer = DataOf<typeof api.syslog.test>;
/** The last test of this page: its receiver, and the answer or why it could not run. */
interface TestOutcome {
  name: string;
  answer: TestAnswer | null;
  error: string | null;
}

const widths = {
  name: 150,
  address: 190,
  protocol: 80,
  format: 100,
  enabled: 80,
  lag: 80,
  last_error: 250,
  sent: 90,
  last_sent_at: 170,
  streams: 180,
  operations: 170,
};

const protocolColors = { udp: 'default', tcp: 'blue', tls: 'green' } as const;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The outcome of a test: delivered (or sent, for UDP), or the failure with its detail. */
function TestResult({ outcome }: { outcome: TestOutcome }) {
  const t = useT();
  const { name, answer, error } = outcome;
  if (error !== null || answer === null) {
    return (
      <div data-testid="syslog-test-result" data-ok="false">
        <Alert type="error" showIcon title={t('syslog:test.error')} description={error} />
      </div>
    );
  }
  // The server words its detail in English; the two outcomes of success are translated here.
  const known =
    answer.detail === 'delivered' ? 'delivered' : answer.detail.startsWith('sent') ? 'sent' : null;
  const figures = t('syslog:test.figures', { ms: answer.ms.toFixed(0) });
  return (
    <div data-testid="syslog-test-result" data-ok={String(answer.ok)}>
      <Alert
        type={answer.ok ? 'success' : 'error'}
        showIcon
        title={
          answer.ok
            ? t('syslog:test.ok', {
                name,
                outcome: known ? t(`syslog:test.outcomes.${known}`) : answer.detail,
              })
            : t('syslog:test.failed', { name })
        }
        description={
          <span style={{ wordBreak: 'break-word' }}>
            {answer.ok ? figures : `${answer.detail} · ${figures}`}
          </span>
        }
      />
    </div>
  );
}

/** Settings › syslog: where the server's records are forwarded, and how far each receiver is behind. */
export default function SyslogPage() {
  const t = useT();
  const kit = useColumnKit<SyslogServer>();
  const confirmDelete = useConfirmDelete();
  const canWrite = useCanCall(api.syslog.create);
  const canTest = useCanCall(api.syslog.test);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<SyslogServer | null>(null);
  const [testing, setTesting] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<TestOutcome | null>(null);

  const { refresh, save, enabledColumn } = useSwitchList<SyslogServer>(syslogKeys.all, (row, enabled) =>
    updateSyslog({ id: row.id, enabled }, false),
  );

  const runTest = async (row: SyslogServer) => {
    setTesting(row.id);
    setOutcome(null);
    try {
      setOutcome({ name: row.name, answer: await testSyslog(row.id), error: null });
    } catch (error) {
      setOutcome({ name: row.name, answer: null, error: errorText(error) });
    } finally {
      setTesting(null);
      await refresh();
    }
  };

  const remove = (row: SyslogServer) =>
    confirmDelete({
      title: t('syslog:deleteConfirm', { name: row.name }),
      remove: () => deleteSyslog([row.id]),
      refresh,
      testId: 'syslog-confirm-delete',
    });

  const columns: ColumnType<SyslogServer>[] = [
    kit.name(t('syslog:fields.name'), 'name'),
    {
      title: t('syslog:fields.address'),
      key: 'address',
      render: (_value: unknown, row) => (
        <Typography.Text code style={{ wordBreak: 'break-all' }}>
          {`${row.host}:${row.port}`}
        </Typography.Text>
      ),
    },
    {
      title: t('syslog:fields.protocol'),
      dataIndex: 'protocol',
      render: (value: SyslogServer['protocol']) => (
        <Tag color={protocolColors[value]}>{t(`syslog:protocols.${value}`)}</Tag>
      ),
    },
    {
      title: t('syslog:fields.format'),
      dataIndex: 'format',
      render: (value: SyslogServer['format']) => t(`syslog:formats.${value}`),
    },
    enabledColumn(t('syslog:fields.enabled'), canWrite, 'syslog-enabled'),
    {
      title: <Tooltip title={t('syslog:hints.lag')}>{t('syslog:fields.lag')}</Tooltip>,
      dataIndex: 'lag',
      align: 'right',
      render: (lag: number, row) =>
        lag > 0 ? (
          <Tag
            color="orange"
            style={{ marginInlineEnd: 0 }}
            data-testid={`syslog-lag-${row.name}`}
            data-lag={lag}
          >
            {formatThousands(lag)}
          </Tag>
        ) : (
          <Typography.Text type="secondary" data-testid={`syslog-lag-${row.name}`} data-lag={0}>
            0
          </Typography.Text>
        ),
    },
    {
      title: t('syslog:fields.lastError'),
      dataIndex: 'last_error',
      render: (error: string | null, row) =>
        error ? (
          <Flex vertical data-testid={`syslog-error-${row.name}`}>
            <Tooltip title={error}>
              <Typography.Text type="danger" ellipsis style={{ maxWidth: widths.last_error - 24 }}>
                {error}
              </Typography.Text>
            </Tooltip>
            {row.last_error_at && (
              <Typography.Text type="danger" style={{ fontSize: 12 }}>
                {t('syslog:errorAt', { time: formatDateTime(row.last_error_at) })}
              </Typography.Text>
            )}
          </Flex>
        ) : (
          '-'
        ),
    },
    {
      title: t('syslog:fields.sent'),
      dataIndex: 'sent',
      align: 'right',
      render: (sent: number, row) => (
        <span data-testid={`syslog-sent-${row.name}`}>{formatThousands(sent)}</span>
      ),
    },
    {
      title: t('syslog:fields.lastSentAt'),
      dataIndex: 'last_sent_at',
      render: (value: string | null) =>
        value ? (
          formatDateTime(value)
        ) : (
          <Typography.Text type="secondary">{t('syslog:never')}</Typography.Text>
        ),
    },
    {
      title: t('syslog:fields.streams'),
      dataIndex: 'streams',
      render: (streams: SyslogServer['streams']) => (
        <Flex wrap gap={4}>
          {streams.map((stream) => (
            <Tag key={stream} style={{ marginInlineEnd: 0 }}>
              {t(`syslog:streams.${stream}`)}
            </Tag>
          ))}
        </Flex>
      ),
    },
  ];

  if (canWrite || canTest) {
    columns.push(
      kit.actions((row) => (
        <RowActions
          items={[
            {
              label: t('syslog:test.action'),
              onClick: () => void runTest(row),
              disabled: testing !== null,
              show: canTest,
              testId: `syslog-test-${row.name}`,
            },
            kit.edit(() => setEditing(row), `syslog-edit-${row.name}`, canWrite),
            kit.remove(() => remove(row), `syslog-delete-${row.name}`, canWrite),
          ]}
        />
      )),
    );
  }

  return (
    <SwitchListPage
      intro={t('syslog:intro')}
      readOnly={t('syslog:readOnly')}
      canWrite={canWrite}
      testId="syslog-intro"
    >
      {outcome && <TestResult outcome={outcome} />}
      <ListPage<SyslogServer>
        title={t('syslog:title')}
        queryKey={syslogKeys.all}
        fetchPage={({ page, page_size }) => listSyslog({ page, page_size })}
        rowKey="id"
        columns={withWidths(columns, widths)}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="syslog-add" />}
        onDelete={canWrite ? (ids) => deleteSyslog(ids) : undefined}
        testId="syslog"
        rowTestId={(row) => `syslog-row-${row.name}`}
      />
      {creating && (
        <SyslogFormModal
          open
          onSubmit={(values: SyslogFormValues) => save(() => createSyslog(createBody(values)))}
          onClose={() => setCreating(false)}
        />
      )}
      {editing && (
        <SyslogFormModal
          key={editing.id}
          open
          stored={editing}
          onSubmit={(values: SyslogFormValues) =>
            save(() => updateSyslog(updateBody(editing.id, values, editing)))
          }
          onClose={() => setEditing(null)}
        />
      )}
    </SwitchListPage>
  );
}
