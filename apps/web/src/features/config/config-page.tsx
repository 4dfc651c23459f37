import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Space, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, type DataOf } from '@ksp/contracts';
import { addConfig, configKeys, deleteConfig, editConfig, listConfig } from '../../api/config';
import { RowActions, useColumnKit } from '../../components/columns';
import { FormModal, type FormField } from '../../components/form-modal';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useT } from '../../i18n/i18n';
import { configDescription } from '../../i18n/server-labels';
import { LogoField } from './logo-field';

type Entry = DataOf<typeof api.config.list>['data'][number];

interface AddValues {
  key: string;
  value: string;
  public: boolean;
  description: string;
}

interface EditValues {
  value: string;
  public?: boolean;
  description: string;
}

const MFA_KEY = 'MFA';
const LOGO_KEY = 'logo';

const mfaSwitch = {
  kind: 'switch' as const,
  getValueProps: (value: unknown) => ({ checked: value === '1' }),
  normalize: (checked: unknown) => (checked ? '1' : '0'),
};

/** Settings › configuration: key/value entries, built-in ones protected. */
export default function ConfigPage() {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Entry | null>(null);
  const kit = useColumnKit<Entry>();

  const refresh = () => queryClient.invalidateQueries({ queryKey: configKeys.all });

  const valueCell = (row: Entry) => {
    if (row.key === LOGO_KEY) {
      return row.value.startsWith('data:image/') ? (
        <img src={row.value} alt="logo" style={{ height: 24, maxWidth: 96, objectFit: 'contain' }} />
      ) : (
        '-'
      );
    }
    if (row.key === MFA_KEY)
      return (
        <Tag color={row.value === '1' ? 'gold' : 'default'}>
          {t(row.value === '1' ? 'common:yes' : 'common:no')}
        </Tag>
      );
    return (
      <Tooltip title={row.value.length > 40 ? row.value : undefined}>
        <Typography.Text style={{ maxWidth: 320 }} ellipsis>
          {row.value}
        </Typography.Text>
      </Tooltip>
    );
  };

  const columns: ColumnsType<Entry> = [
    kit.name(t('config:columns.key'), 'key', (key, row) => (
      <Space size={4} wrap>
        <Typography.Text strong>{key}</Typography.Text>
        {row.built_in && <Tag color="blue">{t('config:builtIn')}</Tag>}
        {row.read_only && <Tag>{t('config:readOnly')}</Tag>}
      </Space>
    )),
    { title: t('config:columns.value'), dataIndex: 'value', render: (_value: string, row) => valueCell(row) },
    {
      title: t('config:columns.public'),
      dataIndex: 'public',
      render: (value: boolean) => (value ? t('common:yes') : t('common:no')),
    },
    {
      title: t('config:columns.description'),
      dataIndex: 'description',
      ellipsis: true,
      render: (_description: string, row) => configDescription(row),
    },
    kit.time(t('config:columns.updatedAt'), 'updated_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('common:actions.edit'),
            onClick: () => setEditing(row),
            testId: `config-edit-${row.key}`,
            disabled: row.read_only,
          },
        ]}
      />
    )),
  ];

  const addFields: FormField<AddValues>[] = [
    { name: 'key', label: t('config:fields.key'), extra: t('config:keyRule'), testId: 'config-key' },
    { name: 'value', label: t('config:fields.value'), kind: 'textarea', testId: 'config-value' },
    { name: 'public', label: t('config:fields.public'), kind: 'switch' },
    { name: 'description', label: t('config:fields.description'), kind: 'textarea' },
  ];

  const valueField = (entry: Entry | null): FormField<EditValues> => {
    if (entry?.key === MFA_KEY)
      return { name: 'value', label: t('config:fields.mfa'), ...mfaSwitch, testId: 'config-mfa' };
    if (entry?.key === LOGO_KEY)
      return { name: 'value', label: t('config:fields.value'), kind: 'custom', render: () => <LogoField /> };
    return { name: 'value', label: t('config:fields.value'), kind: 'textarea', testId: 'config-value' };
  };

  const editFields: FormField<EditValues>[] = [
    valueField(editing),
    // Built-in entries stay public: the login page reads them before anyone signs in.
    { name: 'public', label: t('config:fields.public'), kind: 'switch', hidden: editing?.built_in ?? false },
    { name: 'description', label: t('config:fields.description'), kind: 'textarea' },
  ];

  return (
    <>
      <ListPage<Entry>
        queryKey={configKeys.all}
        fetchPage={({ page, page_size, filters }) => listConfig({ page, page_size, key: filters.key })}
        rowKey="id"
        columns={columns}
        filters={[{ name: 'key', label: t('config:columns.key') }]}
        toolbar={<ListAddButton onClick={() => setAdding(true)} testId="config-add" />}
        onDelete={(ids) => deleteConfig(ids)}
        canSelect={(row) => !row.built_in}
      />
      <FormModal<AddValues>
        open={adding}
        title={t('config:addTitle')}
        schema={api.config.add.body}
        fields={addFields}
        initialValues={{ public: false, value: '', description: '' }}
        onSubmit={async (values) => {
          await addConfig(values);
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
        onClose={() => setAdding(false)}
      />
      <FormModal<EditValues>
        open={editing !== null}
        title={t('config:editTitle', { key: editing?.key ?? '' })}
        schema={api.config.edit.body}
        fields={editFields}
        initialValues={
          editing
            ? // A built-in entry's stock description is shown in the reader's language.
              { value: editing.value, public: editing.public, description: configDescription(editing) }
            : undefined
        }
        onSubmit={async (values) => {
          if (!editing) return;
          await editConfig({
            id: editing.id,
            value: values.value,
            // Left as shown: the stored text stays (a translation is not written over it).
            description:
              values.description === configDescription(editing) ? editing.description : values.description,
            public: editing.built_in ? undefined : values.public,
          });
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
        onClose={() => setEditing(null)}
      />
    </>
  );
}
