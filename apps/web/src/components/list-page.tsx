import { useEffect, useRef, useState, type HTMLAttributes, type Key, type ReactNode } from 'react';
import { DeleteOutlined, PlusOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Flex, Form, Grid, Input, Select, Space, Table, Typography } from 'antd';
import type { SelectProps } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useT } from '../i18n/i18n';
import { tableScrollX } from './columns';
import { useConfirmDelete } from './confirm-delete';
import { useViewSearchParams } from './view-activity';

export const DEFAULT_PAGE_SIZE = 20;

export interface ListFilter {
  name: string;
  label: string;
  placeholder?: string;
  /** A select of these values (groups allowed) instead of a text input. */
  options?: SelectProps['options'];
  /** The select can be searched by typing an option's value. */
  searchable?: boolean;
  /** Width on wide screens (a phone gives each filter a share of the row). */
  width?: number;
  /**
   * A control of its own instead of a text input or a select: one element, which the form
   * gives the filter's `value` (a string in the URL) and `onChange`.
   */
  render?: (props: { compact: boolean; testId: string; label: string }) => ReactNode;
}

export interface ListQuery {
  page: number;
  page_size: number;
  filters: Record<string, string>;
}

export interface ListPageProps<Row extends object> {
  /** Base query key of the area; invalidating it refreshes the list. */
  queryKey: readonly unknown[];
  /** `total_capped`: the server stopped counting at `total` (the key list past 10,000 matches). */
  fetchPage: (query: ListQuery) => Promise<{ data: Row[]; total: number; total_capped?: boolean }>;
  rowKey: keyof Row & string;
  columns: ColumnsType<Row>;
  filters?: ListFilter[];
  /** Buttons beside the batch delete (e.g. "Add"). */
  toolbar?: ReactNode;
  /** Enables batch selection and "Delete selected". */
  onDelete?: (ids: string[]) => Promise<unknown>;
  /** Rows that may be selected for batch delete (others show a disabled checkbox). */
  canSelect?: (row: Row) => boolean;
  title?: ReactNode;
  /**
   * Prefix of the test ids: with 'key' the card is `key-list`, the filters `key-filter-<name>`,
   * the buttons `key-search` and `key-reset`. Without it the generic `list-*` ids are used.
   */
  testId?: string;
  /** The `data-testid` of a row. */
  rowTestId?: (row: Row) => string;
  /** A click on a row (e.g. opens its details). */
  onRowClick?: (row: Row) => void;
  /** The page's dialogs. */
  children?: ReactNode;
  /**
   * URL search params the page around the list owns (e.g. its tab): kept as the list
   * rewrites the URL for its filters and paging.
   */
  keepParams?: readonly string[];
}

function positiveInt(value: string | null, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** page, page_size and the filters, read from the URL search params. */
export function readListQuery(params: URLSearchParams, filters: readonly ListFilter[]): ListQuery {
  const values: Record<string, string> = {};
  for (const filter of filters) {
    const value = params.get(filter.name)?.trim();
    if (value) values[filter.name] = value;
  }
  return {
    page: positiveInt(params.get('page'), 1),
    page_size: positiveInt(params.get('page_size'), DEFAULT_PAGE_SIZE),
    filters: values,
  };
}

/** The URL search params of a list query (defaults left out). */
export function writeListQuery(query: ListQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query.filters)) if (value) params.set(name, value);
  if (query.page !== 1) params.set('page', String(query.page));
  if (query.page_size !== DEFAULT_PAGE_SIZE) params.set('page_size', String(query.page_size));
  return params;
}

/** The test ids of a list's parts (see `ListPageProps.testId`). */
export function listTestIds(prefix: string | undefined) {
  return prefix
    ? {
        card: `${prefix}-list`,
        form: `${prefix}-filters`,
        filter: (name: string) => `${prefix}-filter-${name}`,
        search: `${prefix}-search`,
        reset: `${prefix}-reset`,
      }
    : {
        card: 'list-page',
        form: undefined,
        filter: (name: string, index: number) => (index === 0 ? 'list-search' : `filter-${name}`),
        search: 'list-search-submit',
        reset: undefined,
      };
}

/** The filter form: inline on wide screens; on a phone filters share rows, named by placeholders. */
function FilterForm({
  filters,
  values,
  ids,
  onSearch,
}: {
  filters: readonly ListFilter[];
  values: Record<string, string>;
  ids: ReturnType<typeof listTestIds>;
  onSearch: (values: Record<string, string | undefined>) => void;
}) {
  const t = useT();
  const [form] = Form.useForm<Record<string, string>>();
  const compact = !Grid.useBreakpoint().md;
  const itemStyle = compact ? { flex: '1 1 140px', marginInlineEnd: 0 } : undefined;
  const initial = Object.fromEntries(filters.map((filter) => [filter.name, values[filter.name]]));
  const initialKey = JSON.stringify(initial);
  // The URL's filters changed (a search, a reset, Back): the form shows them. The remounted
  // form alone would not: a form instance keeps its values over new initial values. Only on a
  // change: a kept-alive view shown again re-runs its effects, and must keep what was typed.
  const shownKey = useRef(initialKey);
  useEffect(() => {
    if (shownKey.current === initialKey) return;
    shownKey.current = initialKey;
    form.resetFields();
  }, [form, initialKey]);

  const reset = () => {
    form.resetFields();
    onSearch({});
  };

  return (
    <Form
      key={initialKey}
      form={form}
      layout="inline"
      initialValues={initial}
      onFinish={onSearch}
      style={{ marginBottom: 16, rowGap: 8, columnGap: compact ? 8 : undefined }}
      data-testid={ids.form}
    >
      {filters.map((filter, index) => {
        const common = {
          allowClear: true,
          style: { width: compact ? '100%' : filter.width, minWidth: compact ? undefined : 160 },
          'data-testid': ids.filter(filter.name, index),
          'data-filter': filter.name,
        };
        return (
          <Form.Item
            key={filter.name}
            name={filter.name}
            label={compact ? undefined : filter.label}
            style={itemStyle}
          >
            {filter.render ? (
              filter.render({ compact, testId: ids.filter(filter.name, index), label: filter.label })
            ) : filter.options ? (
              <Select
                {...common}
                placeholder={compact ? filter.label : (filter.placeholder ?? t('common:table.all'))}
                options={filter.options}
                showSearch={filter.searchable ? { optionFilterProp: 'value' } : undefined}
              />
            ) : (
              <Input {...common} placeholder={filter.placeholder ?? (compact ? filter.label : undefined)} />
            )}
          </Form.Item>
        );
      })}
      <Form.Item>
        <Space wrap>
          <Button type="primary" htmlType="submit" icon={<SearchOutlined />} data-testid={ids.search}>
            {t('common:actions.search')}
          </Button>
          <Button onClick={reset} data-testid={ids.reset}>
            {t('common:actions.reset')}
          </Button>
        </Space>
      </Form.Item>
    </Form>
  );
}

/** The "Add" button of a list's toolbar (or another `label`, e.g. "Create policy"). */
export function ListAddButton({
  onClick,
  testId,
  label,
}: {
  onClick: () => void;
  testId: string;
  label?: ReactNode;
}) {
  const t = useT();
  return (
    <Button type="primary" icon={<PlusOutlined />} onClick={onClick} data-testid={testId}>
      {label ?? t('common:actions.add')}
    </Button>
  );
}

/**
 * A server-paged list: filters and paging live in the URL (so a tab or a link keeps
 * them), rows can be selected for batch delete, and a page only declares its columns,
 * filters, toolbar and row actions (see `useColumnKit`).
 */
export function ListPage<Row extends object>({
  queryKey,
  fetchPage,
  rowKey,
  columns,
  filters = [],
  toolbar,
  onDelete,
  canSelect,
  title,
  testId,
  rowTestId,
  onRowClick,
  children,
  keepParams = [],
}: ListPageProps<Row>) {
  const t = useT();
  const { message } = App.useApp();
  const confirmDelete = useConfirmDelete();
  const queryClient = useQueryClient();
  const screens = Grid.useBreakpoint();
  const [params, setParams] = useViewSearchParams();
  const query = readListQuery(params, filters);
  const [chosen, setChosen] = useState<Key[]>([]);
  const ids = listTestIds(testId);
  const writeQuery = (next: ListQuery) => {
    const written = writeListQuery(next);
    for (const name of keepParams) {
      const value = params.get(name);
      if (value !== null) written.set(name, value);
    }
    setParams(written);
  };

  const result = useQuery({
    queryKey: [...queryKey, 'list', query],
    queryFn: () => fetchPage(query),
    placeholderData: keepPreviousData,
  });
  const rows = result.data?.data ?? [];
  // Rows that went (deleted here or elsewhere) leave the selection.
  const selected = chosen.filter((key) => rows.some((row) => row[rowKey] === key));

  const search = (values: Record<string, string | undefined>) => {
    const next: Record<string, string> = {};
    for (const [name, value] of Object.entries(values)) if (value?.trim()) next[name] = value.trim();
    setChosen([]);
    writeQuery({ ...query, page: 1, filters: next });
  };

  const deleteSelected = () => {
    if (!onDelete) return;
    if (selected.length === 0) {
      void message.warning(t('common:validation.selectAtLeastOne'));
      return;
    }
    const keys = selected.map(String);
    confirmDelete({
      title: t('common:confirm.deleteTitle', { count: keys.length }),
      remove: () => onDelete(keys),
      onDeleted: () => setChosen([]),
      refresh: () => queryClient.invalidateQueries({ queryKey }),
      testId: 'confirm-delete',
    });
  };

  return (
    <Card title={title} data-testid={ids.card}>
      {filters.length > 0 && (
        <FilterForm filters={filters} values={query.filters} ids={ids} onSearch={search} />
      )}
      <Flex wrap gap={8} justify="space-between" align="center" style={{ marginBottom: 12 }}>
        <Space wrap>
          {toolbar}
          {onDelete && (
            <Button danger icon={<DeleteOutlined />} onClick={deleteSelected} data-testid="batch-delete">
              {t('common:table.deleteSelected')}
            </Button>
          )}
          {selected.length > 0 && (
            <Typography.Text type="secondary" data-testid="list-selected">
              {t('common:table.selected', { count: selected.length })}
            </Typography.Text>
          )}
        </Space>
        <Button
          icon={<ReloadOutlined />}
          aria-label={t('common:actions.refresh')}
          onClick={() => void result.refetch()}
        />
      </Flex>
      <Table<Row>
        rowKey={rowKey}
        columns={columns}
        dataSource={rows}
        loading={result.isFetching}
        scroll={{ x: tableScrollX(columns, onDelete !== undefined) }}
        size={screens.md ? 'medium' : 'small'}
        onRow={
          rowTestId || onRowClick
            ? (row) =>
                ({
                  'data-testid': rowTestId?.(row),
                  onClick: onRowClick ? () => onRowClick(row) : undefined,
                  style: onRowClick ? { cursor: 'pointer' } : undefined,
                }) as HTMLAttributes<HTMLElement>
            : undefined
        }
        rowSelection={
          onDelete
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => setChosen(keys),
                getCheckboxProps: (row) => ({ disabled: canSelect ? !canSelect(row) : false }),
              }
            : undefined
        }
        pagination={{
          current: query.page,
          pageSize: query.page_size,
          total: result.data?.total ?? 0,
          showSizeChanger: true,
          showTotal: (total) => (
            <span data-testid="list-total">
              {t(result.data?.total_capped ? 'common:table.totalAtLeast' : 'common:table.total', {
                count: total,
              })}
            </span>
          ),
          onChange: (page, pageSize) => {
            setChosen([]);
            writeQuery({
              ...query,
              page: pageSize === query.page_size ? page : 1,
              page_size: pageSize,
            });
          },
        }}
      />
      {children}
    </Card>
  );
}
