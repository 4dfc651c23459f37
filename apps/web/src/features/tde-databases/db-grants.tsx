import type { HTMLAttributes } from 'react';
import { App, Button, Col, Form, InputNumber, Row, Table, Tag, Typography } from 'antd';
import type { Rule } from 'antd/es/form';
import type { ColumnsType } from 'antd/es/table';
import { Link } from 'react-router';
import {
  api,
  keyStateLabels,
  keyStates,
  stateLabel,
  type DbClientDetail,
  type DbKeyGrant,
  type KeyState,
  type KeyStateLabel,
} from '@ksp/contracts';
import { grantDbKey, listDbKeyOptions, ungrantDbKey, type DbKeyOption } from '../../api/tde-database';
import { useConfirm } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { keyDetailHref } from '../../components/key-links';
import { formatThousands } from '../../components/number-format';
import { PagedSelect } from '../../components/paged-select';
import { useCanCall } from '../../components/permissions';
import { fieldSchema, requiredRule } from '../../components/schema-rules';
import { limitsAt } from '../../components/schema-limits';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';

const grantBody = api.tdeDatabase.grant.body!;
const DB_KEY_ID = limitsAt(grantBody, ['db_key_id']);
const dbKeyIdSchema = fieldSchema(grantBody, 'db_key_id')!;

interface GrantValues {
  db_key_id?: number | null;
  key_id?: string;
}

const stateColors: Record<KeyStateLabel, string> = {
  'in-use': 'green',
  inactive: 'blue',
  disabled: 'orange',
  destroyed: 'default',
};

/** The console's label of a key state the server sent (a KMIP state or already a label); unknown ones as sent. */
function labelOf(state: string): KeyStateLabel | null {
  if ((keyStateLabels as readonly string[]).includes(state)) return state as KeyStateLabel;
  if ((keyStates as readonly string[]).includes(state)) return stateLabel(state as KeyState);
  return null;
}

function KeyStateTag({ state }: { state: string }) {
  const t = useT();
  const label = labelOf(state);
  return (
    <Tag color={label ? stateColors[label] : 'default'}>{label ? t(`keys:states.${label}`) : state}</Tag>
  );
}

/** The rule of the key id: the contract's DbKeyId (a whole number, 1 to 4294967295), one message for every refusal. */
function useDbKeyIdRule(): Rule {
  const t = useT();
  const message = t('tdeDatabase:grant.dbKeyIdRule', { min: DB_KEY_ID.min, max: DB_KEY_ID.max });
  return {
    validator: (_rule, value: unknown) =>
      dbKeyIdSchema.safeParse(value).success ? Promise.resolve() : Promise.reject(new Error(message)),
  };
}

/** Grant a key: the key id the database asks for and an AES-256 key of the domain in use. */
function GrantForm({ client, onChanged }: { client: DbClientDetail; onChanged: () => Promise<unknown> }) {
  const t = useT();
  const { message } = App.useApp();
  const [form] = Form.useForm<GrantValues>();
  const submit = useSubmit();
  const keyIdRule = useDbKeyIdRule();
  const keyLabel = t('tdeDatabase:grant.key');
  return (
    <Form<GrantValues>
      form={form}
      layout="vertical"
      data-testid="db-grant-form"
      onFinish={(values) =>
        void submit.run(async () => {
          const dbKeyId = Number(values.db_key_id);
          await grantDbKey({ id: client.id, db_key_id: dbKeyId, key_id: values.key_id ?? '' });
          void message.success(t('tdeDatabase:grant.done', { id: dbKeyId }));
          form.resetFields();
          await onChanged();
        })
      }
    >
      <Row gutter={12} align="top">
        <Col xs={24} md={8}>
          <Form.Item
            name="db_key_id"
            label={t('tdeDatabase:grant.dbKeyId')}
            extra={t('tdeDatabase:grant.dbKeyIdHint')}
            required
            rules={[keyIdRule]}
          >
            {/* No min / max here: the field would keep an out-of-range number to itself instead of letting the rule speak. */}
            <InputNumber controls={false} style={{ width: '100%' }} data-testid="db-grant-id" />
          </Form.Item>
        </Col>
        <Col xs={24} md={11}>
          <Form.Item
            name="key_id"
            label={keyLabel}
            extra={t('tdeDatabase:grant.keyHint')}
            rules={[{ ...requiredRule(keyLabel), message: t('tdeDatabase:grant.keyRequired') }]}
          >
            <PagedSelect<DbKeyOption>
              queryKey={['tde-database', 'key-options']}
              // One answer holds every key that may be granted (the server's list, searched by name).
              fetchPage={async (_page, _pageSize, search) => {
                const keys = await listDbKeyOptions(search.trim() || undefined);
                return { data: keys, total: keys.length };
              }}
              toOption={(key) => ({ value: key.id, label: key.name })}
              data-testid="db-grant-key"
            />
          </Form.Item>
        </Col>
        <Col xs={24} md={5}>
          <Form.Item label=" ">
            <Button type="primary" htmlType="submit" {...submit.buttonProps} data-testid="db-grant-ok">
              {t('tdeDatabase:grant.ok')}
            </Button>
          </Form.Item>
        </Col>
      </Row>
    </Form>
  );
}

/**
 * The keys granted to a database client, each under the key id the database asks for, with the
 * reads counted; with `cte:write`, the form that grants one more and "Remove" per grant.
 */
export function DbGrants({
  client,
  onChanged,
}: {
  client: DbClientDetail;
  onChanged: () => Promise<unknown>;
}) {
  const t = useT();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const canWrite = useCanCall(api.tdeDatabase.grant);
  const canOpenKeys = useCanCall(api.key.detail);

  const remove = (grant: DbKeyGrant) =>
    confirm({
      title: t('tdeDatabase:ungrant.title', { id: grant.db_key_id, name: client.name }),
      content: t('tdeDatabase:ungrant.content', { id: grant.db_key_id }),
      okText: t('tdeDatabase:grant.remove'),
      danger: true,
      testId: 'db-confirm-ungrant',
      onOk: async () => {
        try {
          await ungrantDbKey(client.id, grant.db_key_id);
          void message.success(t('tdeDatabase:ungrant.done', { id: grant.db_key_id }));
        } catch {
          // The API client showed the server's reason.
        }
        await onChanged();
      },
    });

  const never = <Typography.Text type="secondary">{t('tdeDatabase:never')}</Typography.Text>;
  const columns: ColumnsType<DbKeyGrant> = [
    { title: t('tdeDatabase:grant.dbKeyId'), dataIndex: 'db_key_id', width: 90 },
    {
      title: t('tdeDatabase:grant.keyName'),
      dataIndex: 'key_name',
      render: (name: string, grant) =>
        canOpenKeys ? (
          <Link to={keyDetailHref(grant.key_id)} data-testid={`db-grant-key-${grant.db_key_id}`}>
            {name}
          </Link>
        ) : (
          <span data-testid={`db-grant-key-${grant.db_key_id}`}>{name}</span>
        ),
    },
    {
      title: t('tdeDatabase:grant.keyState'),
      dataIndex: 'key_state',
      render: (state: string) => <KeyStateTag state={state} />,
    },
    { title: t('tdeDatabase:grant.currentVersion'), dataIndex: 'current_version' },
    {
      title: t('tdeDatabase:grant.reads'),
      dataIndex: 'reads',
      render: (reads: number) => formatThousands(reads),
    },
    {
      title: t('tdeDatabase:fields.lastRead'),
      dataIndex: 'last_read_at',
      render: (at: string | null) => (at ? formatDateTime(at) : never),
    },
    {
      title: t('tdeDatabase:grant.lastVersion'),
      dataIndex: 'last_version',
      render: (version: number | null) => version ?? '-',
    },
  ];
  if (canWrite)
    columns.push({
      title: t('common:actions.operations'),
      key: 'operations',
      render: (_: unknown, grant) => (
        <Button
          type="link"
          size="small"
          danger
          onClick={() => remove(grant)}
          data-testid={`db-ungrant-${grant.db_key_id}`}
        >
          {t('tdeDatabase:grant.remove')}
        </Button>
      ),
    });

  return (
    <div style={{ marginTop: 16 }} data-testid="db-grants">
      <Typography.Title level={5}>{t('tdeDatabase:detail.grants')}</Typography.Title>
      {canWrite && <GrantForm client={client} onChanged={onChanged} />}
      <Table<DbKeyGrant>
        size="small"
        rowKey="db_key_id"
        columns={columns}
        dataSource={client.grants}
        pagination={false}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: t('tdeDatabase:detail.noGrants') }}
        onRow={(grant) => ({ 'data-testid': `db-grant-${grant.db_key_id}` }) as HTMLAttributes<HTMLElement>}
      />
    </div>
  );
}
