import { useState } from 'react';
import {
  DeleteOutlined,
  ExportOutlined,
  ImportOutlined,
  LockOutlined,
  PlusOutlined,
} from '@ant-design/icons';
import { Button, Space, Tag, theme, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link, useLocation } from 'react-router';
import { api } from '@ksp/contracts';
import { deleteKeys, keyKeys, listKeys, type KeyListRow, type KeyRow } from '../../api/key';
import { useColumnKit } from '../../components/columns';
import { ListPage, type ListFilter } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { certHolderPath } from '../../components/cert-links';
import { KeyActionMenu, useKeyActions } from './key-actions';
import { AlgorithmCell, KeyStateTags, KeyTypeText, UsageTags } from './key-display';
import { KeyFormModal, type KeyFormMode } from './key-form-modal';
import {
  algorithmGroups,
  CERTIFICATE_KEYS_FILTERS,
  familyLabel,
  isPairedPublic,
  keyAreaOf,
  keyDetailPath,
  keyListQuery,
  STATE_FILTERS,
  TYPE_FILTERS,
  USAGE_FILTERS,
} from './key-model';

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

/** The certificate or CA a key belongs to, as a tag linking to its details. */
function BelongsTo({ holder, keyName }: { holder: NonNullable<KeyListRow['belongs_to']>; keyName: string }) {
  const t = useT();
  return (
    <Tag color={holder.kind === 'ca' ? 'purple' : 'blue'} style={{ marginInlineStart: 8 }}>
      <Link to={certHolderPath(holder)} data-testid={`key-belongs-${keyName}`}>
        {t(holder.kind === 'ca' ? 'keys:belongsTo.ca' : 'keys:belongsTo.certificate', { name: holder.name })}
      </Link>
    </Tag>
  );
}

/** The key list's filters: name, then selects of the values the contract accepts. */
function useKeyFilters(): ListFilter[] {
  const t = useT();
  return [
    {
      name: 'name',
      label: t('keys:filters.name'),
      placeholder: t('keys:filters.namePlaceholder'),
      width: 180,
    },
    {
      name: 'state',
      label: t('keys:filters.state'),
      options: STATE_FILTERS.map((state) => ({ value: state, label: t(`keys:states.${state}`) })),
      width: 170,
    },
    {
      name: 'algorithm',
      label: t('keys:filters.algorithm'),
      searchable: true,
      options: algorithmGroups().map((group) => ({
        label: familyLabel(group.family),
        title: familyLabel(group.family),
        options: group.algorithms.map((info) => ({ value: info.id, label: info.id })),
      })),
      width: 170,
    },
    {
      name: 'type',
      label: t('keys:filters.type'),
      options: TYPE_FILTERS.map((type) => ({ value: type, label: t(`keys:types.${type}`) })),
      width: 170,
    },
    {
      name: 'usage',
      label: t('keys:filters.usage'),
      options: USAGE_FILTERS.map((usage) => ({ value: usage, label: t(`keys:usage.${usage}`) })),
      width: 170,
    },
    {
      // Empty is the server's default: certificate and CA keys hidden.
      name: 'certificate_keys',
      label: t('keys:filters.certificateKeys'),
      placeholder: t('keys:filters.certificateKeysOptions.hide'),
      options: CERTIFICATE_KEYS_FILTERS.map((mode) => ({
        value: mode,
        label: t(`keys:filters.certificateKeysOptions.${mode}`),
      })),
      width: 200,
    },
  ];
}

/**
 * The key list (main console and KMS sub-console): server paging, filters in the URL
 * (state "destroyed" only when chosen — the server leaves destroyed keys out otherwise),
 * batch delete, and each key's lifecycle actions.
 */
export default function KeyListPage() {
  const t = useT();
  const area = keyAreaOf(useLocation().pathname);
  const canWrite = useCanCall(api.key.create);
  const [formMode, setFormMode] = useState<KeyFormMode | null>(null);
  const actions = useKeyActions();
  const kit = useColumnKit<KeyListRow>();
  const filters = useKeyFilters();

  const columns: ColumnsType<KeyListRow> = [
    kit.name(t('keys:columns.name'), 'name', (name, row) => (
      <>
        <Link to={keyDetailPath(area, row.id)} data-testid={`key-link-${name}`}>
          {name}
        </Link>
        {row.belongs_to && <BelongsTo holder={row.belongs_to} keyName={row.name} />}
      </>
    )),
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
    kit.time(t('keys:columns.created'), 'created_at'),
    kit.time(t('keys:columns.updated'), 'updated_at'),
    kit.actions((row) => (
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
    )),
  ];

  return (
    <ListPage<KeyListRow>
      title={t('keys:list.title')}
      testId="key"
      queryKey={keyKeys.all}
      fetchPage={({ page, page_size, filters: values }) => listKeys(keyListQuery(page, page_size, values))}
      rowKey="id"
      rowTestId={(row) => `key-row-${row.name}`}
      columns={columns}
      filters={filters}
      toolbar={
        canWrite && (
          <>
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setFormMode('create')}
              data-testid="key-create"
            >
              {t('keys:list.create')}
            </Button>
            <Button icon={<ImportOutlined />} onClick={() => setFormMode('import')} data-testid="key-import">
              {t('keys:list.import')}
            </Button>
          </>
        )
      }
      onDelete={canWrite ? (ids) => deleteKeys(ids) : undefined}
      canSelect={(row) => row.deletable && !isPairedPublic(row)}
    >
      {formMode && <KeyFormModal mode={formMode} open onClose={() => setFormMode(null)} />}
      {actions.dialogs}
    </ListPage>
  );
}
