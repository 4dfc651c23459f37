import { useState, type Key, type ReactNode } from 'react';
import { DeleteOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Flex, Form, Grid, Input, Select, Space, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useT } from '../i18n/i18n';
import { useConfirmDelete } from './confirm-delete';
import { useViewSearchParams } from './view-activity';

export const DEFAULT_PAGE_SIZE = 20;

export interface ListFilter {
  name: string;
  label: string;
  placeholder?: string;
  /** A select of these values instead of a text input. */
  options?: { label: ReactNode; value: string }[];
}

export interface ListQuery {
  page: number;
  page_size: number;
  filters: Record<string, string>;
}

export interface ListPageProps<Row extends object> {
  /** Base query key of the area; invalidating it refreshes the list. */
  queryKey: readonly unknown[];
  fetchPage: (query: ListQuery) => Promise<{ data: Row[]; total: number }>;
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

/**
 * A server-paged list: filters and paging live in the URL (so a tab or a link keeps
 * them), rows can be selected for batch delete, and a page only declares its columns,
 * filters and actions.
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
}: ListPageProps<Row>) {
  const t = useT();
  const { message } = App.useApp();
  const confirmDelete = useConfirmDelete();
  const queryClient = useQueryClient();
  const screens = Grid.useBreakpoint();
  const [params, setParams] = useViewSearchParams();
  const query = readListQuery(params, filters);
  const [selected, setSelected] = useState<Key[]>([]);
  const [form] = Form.useForm<Record<string, string>>();

  const result = useQuery({
    queryKey: [...queryKey, 'list', query],
    queryFn: () => fetchPage(query),
    placeholderData: keepPreviousData,
  });

  const search = (values: Record<string, string | undefined>) => {
    const next: Record<string, string> = {};
    for (const [name, value] of Object.entries(values)) if (value?.trim()) next[name] = value.trim();
    setSelected([]);
    setParams(writeListQuery({ ...query, page: 1, filters: next }));
  };

  const reset = () => {
    form.resetFields();
    search({});
  };

  const deleteSelected = () => {
    if (!onDelete) return;
    if (selected.length === 0) {
      void message.warning(t('common:validation.selectAtLeastOne'));
      return;
    }
    const ids = selected.map(String);
    confirmDelete({
      title: t('common:confirm.deleteTitle', { count: ids.length }),
      remove: () => onDelete(ids),
      onDeleted: () => setSelected([]),
      refresh: () => queryClient.invalidateQueries({ queryKey }),
      testId: 'confirm-delete',
    });
  };

  const filterValues = Object.fromEntries(
    filters.map((filter) => [filter.name, query.filters[filter.name] ?? '']),
  );

  return (
    <Card title={title} data-testid="list-page">
      {filters.length > 0 && (
        <Form
          key={JSON.stringify(filterValues)}
          form={form}
          layout={screens.md ? 'inline' : 'vertical'}
          initialValues={filterValues}
          onFinish={search}
          style={{ marginBottom: 16, rowGap: 8 }}
        >
          {filters.map((filter, index) => (
            <Form.Item key={filter.name} name={filter.name} label={filter.label}>
              {filter.options ? (
                <Select
                  allowClear
                  placeholder={filter.placeholder}
                  options={filter.options}
                  style={{ minWidth: 160 }}
                  data-testid={index === 0 ? 'list-search' : `filter-${filter.name}`}
                  data-filter={filter.name}
                />
              ) : (
                <Input
                  allowClear
                  placeholder={filter.placeholder}
                  data-testid={index === 0 ? 'list-search' : `filter-${filter.name}`}
                  data-filter={filter.name}
                />
              )}
            </Form.Item>
          ))}
          <Form.Item>
            <Space wrap>
              <Button
                type="primary"
                htmlType="submit"
                icon={<SearchOutlined />}
                data-testid="list-search-submit"
              >
                {t('common:actions.search')}
              </Button>
              <Button onClick={reset}>{t('common:actions.reset')}</Button>
            </Space>
          </Form.Item>
        </Form>
      )}
      <Flex wrap gap={8} justify="space-between" align="center" style={{ marginBottom: 12 }}>
        <Space wrap>
          {toolbar}
          {onDelete && (
            <Button danger icon={<DeleteOutlined />} onClick={deleteSelected} data-testid="batch-delete">
              {t('common:table.deleteSelected')}
            </Button>
          )}
          {onDelete && selected.length > 0 && (
            <Typography.Text type="secondary">
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
        dataSource={result.data?.data ?? []}
        loading={result.isFetching}
        scroll={{ x: 'max-content' }}
        size={screens.md ? 'medium' : 'small'}
        rowSelection={
          onDelete
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => setSelected(keys),
                getCheckboxProps: (row) => ({ disabled: canSelect ? !canSelect(row) : false }),
              }
            : undefined
        }
        pagination={{
          current: query.page,
          pageSize: query.page_size,
          total: result.data?.total ?? 0,
          showSizeChanger: true,
          showTotal: (total) => t('common:table.total', { total }),
          onChange: (page, pageSize) =>
            setParams(
              writeListQuery({
                ...query,
                page: pageSize === query.page_size ? page : 1,
                page_size: pageSize,
              }),
            ),
        }}
      />
    </Card>
  );
}
