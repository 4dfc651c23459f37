import { useQuery } from '@tanstack/react-query';
import { Card, Col, Row, Statistic, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { clientStatuses, type ClientRow, type ClientStatus } from '@ksp/contracts';
import { kadpClientKeys, listKadpClients } from '../../api/kadp-client';
import { RowActions, useColumnKit } from '../../components/columns';
import { ListPage } from '../../components/list-page';
import { useViewSearchParams } from '../../components/view-activity';
import { useT } from '../../i18n/i18n';
import { ClientStatusTag, clientDetailPath } from './client-status';

type CountKey = 'total' | 'errors' | 'warnings' | 'healthy';
/** The status bar's figures and the status filter each sets (total clears it). */
const bar: { key: CountKey; status: ClientStatus | null; color?: string }[] = [
  { key: 'total', status: null },
  { key: 'errors', status: 'error', color: '#cf1322' },
  { key: 'warnings', status: 'warning', color: '#d48806' },
  { key: 'healthy', status: 'healthy', color: '#389e0d' },
];

/** The status bar: total / errors / warnings / healthy, each a click that filters the list. */
function StatusBar() {
  const t = useT();
  const [params, setParams] = useViewSearchParams();
  const current = params.get('status');
  const counts = useQuery({
    queryKey: [...kadpClientKeys.list, 'counts'],
    queryFn: () => listKadpClients({ page: 1, page_size: 1 }),
  }).data?.counts;
  const choose = (status: ClientStatus | null) => {
    const next = new URLSearchParams(params);
    if (status) next.set('status', status);
    else next.delete('status');
    next.delete('page');
    setParams(next);
  };
  return (
    <Row gutter={[12, 12]} style={{ marginBottom: 12 }} data-testid="client-status-bar">
      {bar.map(({ key, status, color }) => {
        const active = (status ?? null) === (current ?? null);
        return (
          <Col key={key} xs={12} sm={12} md={6}>
            <Card
              size="small"
              hoverable
              onClick={() => choose(status)}
              data-testid={`client-count-${key}`}
              style={active ? { borderColor: color ?? '#1677ff' } : undefined}
              role="button"
              aria-pressed={active}
            >
              <Statistic
                title={t(`kadp:counts.${key}`)}
                value={counts?.[key] ?? '-'}
                {...(color ? { styles: { content: { color } } } : {})}
              />
            </Card>
          </Col>
        );
      })}
    </Row>
  );
}

/** KADP › clients: the applications enrolled in this domain, with the status bar (MODULES.md §6.1). */
export default function ClientListPage() {
  const t = useT();
  const kit = useColumnKit<ClientRow>();
  const navigate = useNavigate();
  const open = (row: ClientRow) => void navigate(clientDetailPath(row.id));
  const statusOptions = clientStatuses.map((v) => ({ value: v, label: t(`kadp:statuses.${v}`) }));

  const columns: ColumnsType<ClientRow> = [
    {
      title: t('kadp:fields.status'),
      dataIndex: 'status',
      render: (status: ClientStatus) => <ClientStatusTag status={status} />,
    },
    kit.name(t('kadp:fields.name'), 'name', (name: string, row) => (
      <Typography.Link strong onClick={() => open(row)} data-testid={`client-open-${name}`}>
        {name}
      </Typography.Link>
    )),
    { title: t('kadp:fields.host'), dataIndex: 'host', render: (v: string) => v || '-' },
    { title: t('kadp:fields.agentVersion'), dataIndex: 'agent_version', render: (v: string) => v || '-' },
    { title: t('kadp:fields.application'), dataIndex: 'token_name' },
    { title: t('kadp:fields.os'), dataIndex: 'os', render: (v: string) => v || '-' },
    kit.time(t('kadp:fields.lastSeen'), 'last_seen_at'),
    kit.time(t('kadp:fields.registered'), 'registered_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('kadp:actions.details'),
            onClick: () => open(row),
            testId: `client-details-${row.name}`,
          },
        ]}
      />
    )),
  ];

  return (
    <>
      <StatusBar />
      <ListPage<ClientRow>
        queryKey={kadpClientKeys.list}
        testId="client"
        fetchPage={({ page, page_size, filters }) =>
          listKadpClients({
            page,
            page_size,
            name: filters.name,
            status: clientStatuses.find((s) => s === filters.status),
          })
        }
        rowKey="id"
        rowTestId={(row) => `client-row-${row.name}`}
        columns={columns}
        filters={[
          { name: 'name', label: t('kadp:fields.name') },
          { name: 'status', label: t('kadp:fields.status'), options: statusOptions },
        ]}
      />
    </>
  );
}
