import { Form, Input } from 'antd';
import { api, type DbClientRow } from '@ksp/contracts';
import { createDbClient, updateDbClient, type DbClientIssued } from '../../api/tde-database';
import { ModalForm } from '../../components/form-modal';
import { formatIpRules, ipRulesRule, parseIpRules } from '../../components/ip-rules';
import { limitsAt } from '../../components/schema-limits';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';

const createBody = api.tdeDatabase.create.body!;
const updateBody = api.tdeDatabase.update.body!;
const NAME = limitsAt(createBody, ['name']);
const DESCRIPTION = limitsAt(updateBody, ['description']);

interface ClientValues {
  name: string;
  description?: string;
  /** One address or CIDR range per line, as the user IP whitelist is edited. */
  ip_whitelist?: string;
}

/** The description and IP whitelist fields, the same in the create and edit dialogs. */
function DescriptionAndWhitelist({ testId }: { testId: string }) {
  const t = useT();
  const description = t('tdeDatabase:fields.description');
  return (
    <>
      <Form.Item
        name="description"
        label={description}
        extra={t('tdeDatabase:create.descriptionHint')}
        rules={rulesFromSchema(fieldSchema(updateBody, 'description'), description)}
      >
        <Input.TextArea
          maxLength={DESCRIPTION.max}
          autoSize={{ minRows: 2, maxRows: 4 }}
          data-testid={`${testId}-description`}
        />
      </Form.Item>
      <Form.Item
        name="ip_whitelist"
        label={t('tdeDatabase:fields.ipWhitelist')}
        extra={t('access:ip.hint')}
        rules={[ipRulesRule()]}
      >
        <Input.TextArea autoSize={{ minRows: 2, maxRows: 6 }} data-testid={`${testId}-ip`} />
      </Form.Item>
    </>
  );
}

/** Add a database client: its name, description and IP whitelist; the server answers its token once. */
export function CreateDbClientModal({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (issued: DbClientIssued) => Promise<unknown>;
}) {
  const t = useT();
  const name = t('tdeDatabase:fields.name');
  return (
    <ModalForm<ClientValues>
      open={open}
      title={t('tdeDatabase:create.title')}
      okText={t('tdeDatabase:create.ok')}
      okTestId="db-create-ok"
      initialValues={{ description: '', ip_whitelist: '' }}
      onSubmit={async (values) => {
        const issued = await createDbClient({
          name: values.name.trim(),
          description: (values.description ?? '').trim(),
          ip_whitelist: parseIpRules(values.ip_whitelist).rules,
        });
        await onCreated(issued);
      }}
      onClose={onClose}
    >
      <Form.Item
        name="name"
        label={name}
        extra={t('tdeDatabase:create.nameHint')}
        rules={rulesFromSchema(fieldSchema(createBody, 'name'), name)}
      >
        <Input maxLength={NAME.max} data-testid="db-create-name" />
      </Form.Item>
      <DescriptionAndWhitelist testId="db-create" />
    </ModalForm>
  );
}

/** Change a client's description and IP whitelist (its name stays). */
export function EditDbClientModal({
  row,
  onClose,
  onSaved,
}: {
  row: DbClientRow | null;
  onClose: () => void;
  onSaved: () => Promise<unknown>;
}) {
  const t = useT();
  return (
    <ModalForm<ClientValues>
      open={row !== null}
      title={t('tdeDatabase:edit.title', { name: row?.name ?? '' })}
      okTestId="db-edit-ok"
      initialValues={
        row ? { description: row.description, ip_whitelist: formatIpRules(row.ip_whitelist) } : undefined
      }
      onSubmit={async (values) => {
        if (!row) return;
        await updateDbClient({
          id: row.id,
          description: (values.description ?? '').trim(),
          ip_whitelist: parseIpRules(values.ip_whitelist).rules,
        });
        await onSaved();
      }}
      onClose={onClose}
    >
      <DescriptionAndWhitelist testId="db-edit" />
    </ModalForm>
  );
}
