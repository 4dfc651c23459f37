import { Typography } from 'antd';
import type { ColumnType, ColumnsType } from 'antd/es/table';
import { clientStatuses, type ClientStatus } from '@ksp/contracts';
import { useT } from '../i18n/i18n';
import { useColumnKit } from './columns';
import { ClientStatusBar, type CountKey } from './client-status-bar';
import { ListPage, type ListFilter, type ListPageProps } from './list-page';

/** What every agent's row has (KADP, TDE and RDM clients). */
interface ClientBase {
  id: string;
  name: string;
  host: string;
  os: string;
  agent_version: string;
  last_seen_at: string | null;
  registered_at: string;
}

/**
 * The columns the client lists share: the name opening the client, a text that may be empty
 * ("-"), the two dates, and the "Details" row action.
 */
export function useClientColumns<Row extends ClientBase>(open: (row: Row) => void) {
  const t = useT();
  const kit = useColumnKit<Row>();
  return {
    kit,
    name: kit.name(t('kadp:fields.name'), 'name', (name: string, row) => (
      <Typography.Link strong onClick={() => open(row)} data-testid={`client-open-${name}`}>
        {name}
      </Typography.Link>
    )),
    text: (title: string, dataIndex: keyof Row & string): ColumnType<Row> => ({
      title,
      dataIndex,
      render: (v: string) => v || '-',
    }),
    dates: [
      kit.time(t('kadp:fields.lastSeen'), 'last_seen_at'),
      kit.time(t('kadp:fields.registered'), 'registered_at'),
    ],
    details: (row: Row) => ({
      label: t('kadp:actions.details'),
      onClick: () => open(row),
      testId: `client-details-${row.name}`,
    }),
  };
}

/**
 * A client list: the status bar over the paged list, filtered by name and status first, then
 * by `filters` (test ids `client-…`).
 */
export function ClientList<Row extends ClientBase>({
  queryKey,
  fetchCounts,
  fetchPage,
  columns,
  filters = [],
}: {
  queryKey: readonly unknown[];
  fetchCounts: () => Promise<{ counts: Record<CountKey, number> }>;
  /** `status` is one of the client statuses or undefined. */
  fetchPage: (
    query: Parameters<ListPageProps<Row>['fetchPage']>[0],
    status: ClientStatus | undefined,
  ) => ReturnType<ListPageProps<Row>['fetchPage']>;
  columns: ColumnsType<Row>;
  filters?: ListFilter[];
}) {
  const t = useT();
  const statusOptions = clientStatuses.map((v) => ({ value: v, label: t(`kadp:statuses.${v}`) }));
  return (
    <>
      <ClientStatusBar queryKey={queryKey} fetchCounts={fetchCounts} />
      <ListPage<Row>
        queryKey={queryKey}
        testId="client"
        fetchPage={(query) =>
          fetchPage(
            query,
            clientStatuses.find((s) => s === query.filters.status),
          )
        }
        rowKey="id"
        rowTestId={(row) => `client-row-${row.name}`}
        columns={columns}
        filters={[
          { name: 'name', label: t('kadp:fields.name') },
          { name: 'status', label: t('kadp:fields.status'), options: statusOptions },
          ...filters,
        ]}
      />
    </>
  );
}
