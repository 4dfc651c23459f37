import { useState, type HTMLAttributes, type Key } from 'react';
import {
  DeleteOutlined,
  ExportOutlined,
  ImportOutlined,
  LockOutlined,
  PlusOutlined,
  ReloadOutlined,
  SearchOutlined,
} from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Flex,
  Form,
  Grid,
  Input,
  Select,
  Space,
  Table,
  theme,
  Tooltip,
  Typography,
} from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link, useLocation } from 'react-router';
import { deleteKeys, keyKeys, listKeys, type KeyRow } from '../../api/key';
import { useConfirmDelete } from '../../components/confirm-delete';
import { readListQuery, writeListQuery, type ListFilter } from '../../components/list-page';
import { useViewSearchParams } from '../../components/view-activity';
import { useT } from '../../i18n/i18n';
import { KeyActionMenu, useKeyActions, usePermissions } from './key-actions';
import { AlgorithmCell, formatTime, KeyStateTags, KeyTypeText, UsageTags } from './key-display';
import { KeyFormModal, type KeyFormMode } from './key-form-modal';
import {
  algorithmGroups,
  familyLabel,
  isPairedPublic,
  keyAreaOf,
  keyDetailPath,
  keyListQuery,
  LIST_FILTERS,
  STATE_FILTERS,
  TYPE_FILTERS,
  USAGE_FILTERS,
} from './key-model';

const filterNames: ListFilter[] = LIST_FILTERS.map((name) => ({ name, label: name }));

type FilterValues = Partial<Record<(typeof LIST_FILTERS)[number], string>>;

function FlagIcons({ row }: { row: KeyRow }) {
  const t = useT();
  const { token } = theme.useToken();
  const on = { color: token.colorSuccess };
  const off = { color: token.colorTextQuaternary };
  return (
    <Space size={12}>
      <Tooltip title={t(row.exportable ? 'keys:flags.exportable' : 'keys:flags.notExportable')}>
        <ExportOutlined
          style={row.exportable ? on : off}
          aria-label={t(row.exportable ? 'keys:flags.exportable' : 'keys:flags.notExportable')}
          data-testid={`key-exportable-${row.name}`}
          data-on={row.exportable}
        />
      </Tooltip>
      <Tooltip title={t(row.deletable ? 'keys:flags.deletable' : 'keys:flags.notDeletable')}>
        {row.deletable ? (
          <DeleteOutlined style={on} aria-label={t('keys:flags.deletable')} />
        ) : (
          <LockOutlined style={off} aria-label={t('keys:flags.notDeletable')} />
        )}
      </Tooltip>
    </Space>
  );
}

/**
 * The key list (main console and KMS sub-console): server paging, filters in the URL
 * (state "destroyed" only when chosen — the server leaves destroyed keys out otherwise),
 * batch delete, and each key's lifecycle actions.
 */
export default function KeyListPage() {
  const t = useT();
  const { message } = App.useApp();
  const confirmDelete = useConfirmDelete();
  const queryClient = useQueryClient();
  const screens = Grid.useBreakpoint();
  const area = keyAreaOf(useLocation().pathname);
  const permissions = usePermissions();
  const canWrite = permissions.has('key:write');
  const [params, setParams] = useViewSearchParams();
  const listQuery = readListQuery(params, filterNames);
  const query = keyListQuery(listQuery.page, listQuery.page_size, listQuery.filters);
  const [selected, setSelected] = useState<Key[]>([]);
  const [formMode, setFormMode] = useState<KeyFormMode | null>(null);
  const [filterForm] = Form.useForm<FilterValues>();
  const actions = useKeyActions({
    onDeleted: (row) => setSelected((keys) => keys.filter((k) => k !== row.id)),
  });

  const result = useQuery({
    queryKey: keyKeys.list(query),
    queryFn: () => listKeys(query),
    placeholderData: keepPreviousData,
  });

  const search = (values: FilterValues) => {
    const filters: Record<string, string> = {};
    for (const [name, value] of Object.entries(values)) if (value?.trim()) filters[name] = value.trim();
    setSelected([]);
    setParams(writeListQuery({ ...listQuery, page: 1, filters }));
  };

  const reset = () => {
    filterForm.resetFields();
    search({});
  };

  const deleteSelected = () => {
    if (selected.length === 0) {
      void message.warning(t('common:validation.selectAtLeastOne'));
      return;
    }
    const ids = selected.map(String);
    confirmDelete({
      title: t('common:confirm.deleteTitle', { count: ids.length }),
      remove: () => deleteKeys(ids),
      onDeleted: () => setSelected([]),
      refresh: () => queryClient.invalidateQueries({ queryKey: keyKeys.all }),
      testId: 'confirm-delete',
    });
  };

  // On a phone the filters share rows, named by their placeholders.
  const compact = !screens.md;
  const itemStyle = compact ? { flex: '1 1 140px', marginInlineEnd: 0 } : undefined;
  const label = (text: string) => (compact ? undefined : text);
  const select = (text: string) => ({
    style: { width: compact ? '100%' : 170 },
    allowClear: true,
    placeholder: compact ? text : t('keys:list.all'),
  });
  const filterValues: FilterValues = {
    name: query.name,
    state: query.state,
    algorithm: query.algorithm,
    type: query.type,
    usage: query.usage,
  };

  const columns: ColumnsType<KeyRow> = [
    {
      title: t('keys:columns.name'),
      dataIndex: 'name',
      fixed: screens.md ? 'left' : undefined,
      render: (name: string, row) => (
        <Link to={keyDetailPath(area, row.id)} data-testid={`key-link-${name}`}>
          {name}
        </Link>
      ),
    },
    {
      title: t('keys:columns.algorithm'),
      dataIndex: 'algorithm',
      render: (_value, row) => <AlgorithmCell algorithm={row.algorithm} />,
    },
    {
      title: t('keys:columns.type'),
      dataIndex: 'object_type',
      render: (type: KeyRow['object_type']) => <KeyTypeText type={type} />,
    },
    {
      title: t('keys:columns.usage'),
      dataIndex: 'usages',
      render: (usages: KeyRow['usages']) => <UsageTags usages={usages} />,
    },
    {
      title: t('keys:columns.state'),
      dataIndex: 'state_label',
      render: (_value, row) => <KeyStateTags row={row} />,
    },
    {
      title: t('keys:columns.version'),
      dataIndex: 'version',
      align: 'right',
      render: (version: number, row) => <span data-testid={`key-version-${row.name}`}>{version}</span>,
    },
    { title: t('keys:columns.owner'), dataIndex: 'owner' },
    { title: t('keys:columns.flags'), key: 'flags', render: (_value, row) => <FlagIcons row={row} /> },
    {
      title: t('keys:columns.created'),
      dataIndex: 'created_at',
      render: (value: string) => formatTime(value),
    },
    {
      title: t('keys:columns.updated'),
      dataIndex: 'updated_at',
      render: (value: string) => formatTime(value),
    },
    {
      title: t('common:actions.operations'),
      key: 'operations',
      fixed: screens.md ? 'right' : undefined,
      render: (_value, row) => (
        <Space size={0}>
          <Link
            to={keyDetailPath(area, row.id)}
            style={{ padding: '0 7px' }}
            data-testid={`key-detail-${row.name}`}
          >
            {t('keys:actions.detail')}
          </Link>
          <KeyActionMenu row={row} actions={actions.actionsOf(row)} onRun={actions.run} />
        </Space>
      ),
    },
  ];

  return (
    <Card title={t('keys:list.title')} data-testid="key-list">
      <Form<FilterValues>
        key={JSON.stringify(filterValues)}
        form={filterForm}
        layout="inline"
        initialValues={filterValues}
        onFinish={search}
        style={{ marginBottom: 16, rowGap: 8, columnGap: compact ? 8 : undefined }}
        data-testid="key-filters"
      >
        <Form.Item name="name" label={label(t('keys:filters.name'))} style={itemStyle}>
          <Input
            allowClear
            placeholder={t('keys:filters.namePlaceholder')}
            style={{ width: compact ? '100%' : 180 }}
            data-testid="key-filter-name"
          />
        </Form.Item>
        <Form.Item name="state" label={label(t('keys:filters.state'))} style={itemStyle}>
          <Select
            {...select(t('keys:filters.state'))}
            options={STATE_FILTERS.map((state) => ({ value: state, label: t(`keys:states.${state}`) }))}
            data-testid="key-filter-state"
          />
        </Form.Item>
        <Form.Item name="algorithm" label={label(t('keys:filters.algorithm'))} style={itemStyle}>
          <Select
            {...select(t('keys:filters.algorithm'))}
            showSearch={{ optionFilterProp: 'value' }}
            options={algorithmGroups().map((group) => ({
              label: familyLabel(group.family),
              title: familyLabel(group.family),
              options: group.algorithms.map((info) => ({ value: info.id, label: info.id })),
            }))}
            data-testid="key-filter-algorithm"
          />
        </Form.Item>
        <Form.Item name="type" label={label(t('keys:filters.type'))} style={itemStyle}>
          <Select
            {...select(t('keys:filters.type'))}
            options={TYPE_FILTERS.map((type) => ({ value: type, label: t(`keys:types.${type}`) }))}
            data-testid="key-filter-type"
          />
        </Form.Item>
        <Form.Item name="usage" label={label(t('keys:filters.usage'))} style={itemStyle}>
          <Select
            {...select(t('keys:filters.usage'))}
            options={USAGE_FILTERS.map((usage) => ({ value: usage, label: t(`keys:usage.${usage}`) }))}
            data-testid="key-filter-usage"
          />
        </Form.Item>
        <Form.Item>
          <Space wrap>
            <Button type="primary" htmlType="submit" icon={<SearchOutlined />} data-testid="key-search">
              {t('common:actions.search')}
            </Button>
            <Button onClick={reset} data-testid="key-reset">
              {t('common:actions.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      <Flex wrap gap={8} justify="space-between" align="center" style={{ marginBottom: 12 }}>
        <Space wrap>
          {canWrite && (
            <>
              <Button
                type="primary"
                icon={<PlusOutlined />}
                onClick={() => setFormMode('create')}
                data-testid="key-create"
              >
                {t('keys:list.create')}
              </Button>
              <Button
                icon={<ImportOutlined />}
                onClick={() => setFormMode('import')}
                data-testid="key-import"
              >
                {t('keys:list.import')}
              </Button>
              <Button danger icon={<DeleteOutlined />} onClick={deleteSelected} data-testid="batch-delete">
                {t('common:table.deleteSelected')}
              </Button>
            </>
          )}
          {selected.length > 0 && (
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
      <Table<KeyRow>
        rowKey="id"
        columns={columns}
        dataSource={result.data?.data ?? []}
        loading={result.isFetching}
        scroll={{ x: 'max-content' }}
        size={screens.md ? 'medium' : 'small'}
        onRow={(row) => ({ 'data-testid': `key-row-${row.name}` }) as HTMLAttributes<HTMLElement>}
        rowSelection={
          canWrite
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => setSelected(keys),
                getCheckboxProps: (row) => ({ disabled: !row.deletable || isPairedPublic(row) }),
              }
            : undefined
        }
        pagination={{
          current: listQuery.page,
          pageSize: listQuery.page_size,
          total: result.data?.total ?? 0,
          showSizeChanger: true,
          showTotal: (total) => t('common:table.total', { total }),
          onChange: (page, pageSize) =>
            setParams(
              writeListQuery({
                ...listQuery,
                page: pageSize === listQuery.page_size ? page : 1,
                page_size: pageSize,
              }),
            ),
        }}
      />
      {formMode && <KeyFormModal mode={formMode} open onClose={() => setFormMode(null)} />}
      {actions.dialogs}
    </Card>
  );
}
