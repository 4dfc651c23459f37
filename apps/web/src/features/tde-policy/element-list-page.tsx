import { PlusOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Space, Tabs, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { api, policyElementKinds, type PolicyElementKind } from '@ksp/contracts';
import type { DataOf } from '@ksp/contracts';
import { deleteElement, listElements, tdePolicyKeys } from '../../api/tde-policy';
import { RowActions, useColumnKit } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useViewSearchParams } from '../../components/view-activity';
import { useT } from '../../i18n/i18n';
import { policyPaths, usePolicyArea } from './area';

type ElementRow = DataOf<typeof api.tdePolicy.elementList>['data'][number];

/** TDE / RDM › policy elements: a tab per set kind; name, description, entries, used by, updated. */
export default function ElementListPage() {
  const t = useT();
  const area = usePolicyArea();
  const paths = policyPaths(area);
  const kit = useColumnKit<ElementRow>();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  const [params, setParams] = useViewSearchParams();
  const kind: PolicyElementKind = policyElementKinds.find((k) => k === params.get('kind')) ?? 'resource';
  // Elements are written through the TDE calls only (shared with TDE policies).
  const canWrite = useCanCall(api.tdePolicy.elementCreate);
  const open = (row: ElementRow) => void navigate(paths.element(row.id));

  const columns: ColumnsType<ElementRow> = [
    kit.name(t('tdePolicy:fields.name'), 'name', (name: string, row) => (
      <Typography.Link strong onClick={() => open(row)} data-testid={`element-open-${name}`}>
        {name}
      </Typography.Link>
    )),
    { title: t('tdePolicy:fields.description'), dataIndex: 'description', render: (v: string) => v || '-' },
    { title: t('tdePolicy:fields.entries'), dataIndex: 'entry_count' },
    {
      title: t('tdePolicy:fields.usedBy'),
      dataIndex: 'used_by',
      render: (users: ElementRow['used_by']) =>
        users.length ? (
          <Space size={[4, 4]} wrap>
            {users.map((u) => (
              <Tag key={u.id}>{u.name}</Tag>
            ))}
          </Space>
        ) : (
          t('tdePolicy:elements.usedByNone')
        ),
    },
    kit.time(t('tdePolicy:fields.updated'), 'updated_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('tdePolicy:actions.details'),
            onClick: () => open(row),
            testId: `element-details-${row.name}`,
          },
          {
            label: t('tdePolicy:actions.delete'),
            danger: true,
            show: canWrite,
            testId: `element-delete-${row.name}`,
            onClick: () =>
              confirmDelete({
                title: t('tdePolicy:elements.deleteTitle', {
                  kind: t(`tdePolicy:kinds.${row.kind}`),
                  name: row.name,
                }),
                remove: () => deleteElement(row.id),
                refresh: () => queryClient.invalidateQueries({ queryKey: tdePolicyKeys.elements }),
                testId: 'element-confirm-delete',
              }),
          },
        ]}
      />
    )),
  ];

  const chooseKind = (next: string) => {
    const p = new URLSearchParams();
    p.set('kind', next);
    setParams(p);
  };

  return (
    <>
      {area === 'rdm' && !canWrite && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          message={t('tdePolicy:elements.rdmReadOnly')}
        />
      )}
      <Tabs
        activeKey={kind}
        onChange={chooseKind}
        items={policyElementKinds.map((k) => ({
          key: k,
          label: <span data-testid={`element-tab-${k}`}>{t(`tdePolicy:kinds.${k}`)}</span>,
        }))}
      />
      <ListPage<ElementRow>
        key={kind}
        queryKey={[...tdePolicyKeys.elements, area, kind]}
        testId="element"
        fetchPage={({ page, page_size, filters }) =>
          listElements(area, { page, page_size, kind, name: filters.name })
        }
        rowKey="id"
        rowTestId={(row) => `element-row-${row.name}`}
        columns={columns}
        keepParams={['kind']}
        filters={[{ name: 'name', label: t('tdePolicy:fields.name') }]}
        toolbar={
          canWrite ? (
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => void navigate(`${paths.createElement}?kind=${kind}`)}
              data-testid="element-create"
            >
              {t('tdePolicy:elements.create')}
            </Button>
          ) : null
        }
      />
    </>
  );
}
