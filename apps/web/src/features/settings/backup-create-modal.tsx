import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Checkbox, Form, Input, Modal, Select } from 'antd';
import { api, ROOT_DOMAIN } from '@ksp/contracts';
import { backupKeys, createBackup, fetchBackupKeys } from '../../api/backup';
import { useSignedIn } from '../../api/session';
import { limitsAt } from '../../components/schema-limits';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { CertPicker, KeyPicker } from './backup-pickers';

const DESCRIPTION = limitsAt(api.backup.create.body!, ['description']);
const KEY_NAME = limitsAt(api.backup.create.body!, ['filters', 'key_name']);

type Scope = 'system' | 'domain' | 'partial';
interface CreateValues {
  scope: Scope;
  description: string;
  backup_key_id: string;
  key_ids?: string[];
  key_name: string;
  cert_ids?: string[];
  tied_to_hsm: boolean;
}

/** Starts a backup: its scope, what it holds, the key that protects it and its description. */
export function CreateModal({
  onClose,
  onStarted,
}: {
  onClose: () => void;
  onStarted: (id: string) => void;
}) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const root = useSignedIn()?.userinfo.domain === ROOT_DOMAIN;
  const scopes: Scope[] = root ? ['system', 'domain', 'partial'] : ['domain', 'partial'];
  const [form] = Form.useForm<CreateValues>();
  const scope = Form.useWatch('scope', form) ?? scopes[0];
  const [refusal, setRefusal] = useState<string | null>(null);
  const keys = useQuery({
    queryKey: [...backupKeys.keys, 'all'],
    queryFn: () => fetchBackupKeys({ page: 1, page_size: 1000 }),
  });
  const submit = useSubmit();
  const onOk = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    await submit.run(async () => {
      setRefusal(null);
      try {
        const row = await createBackup({
          scope: values.scope,
          description: values.description ?? '',
          ...(values.backup_key_id ? { backup_key_id: values.backup_key_id } : {}),
          ...(values.scope === 'system' && values.tied_to_hsm ? { tied_to_hsm: true } : {}),
          ...(values.scope === 'partial'
            ? {
                filters: {
                  key_ids: values.key_ids ?? [],
                  key_name: values.key_name ?? '',
                  cert_ids: values.cert_ids ?? [],
                },
              }
            : {}),
        });
        void message.success(t('backup:backups.started'));
        await queryClient.invalidateQueries({ queryKey: backupKeys.backups });
        onStarted(row.id);
        onClose();
      } catch (error) {
        setRefusal(error instanceof Error ? error.message : String(error));
        throw error;
      }
    });
  };
  const usable = (keys.data?.data ?? []).filter((k) => (scope === 'system' ? k.scope === 'system' : true));
  return (
    <Modal
      open
      title={t('backup:backups.createTitle')}
      okText={t('backup:backups.create')}
      cancelText={t('common:actions.cancel')}
      onOk={() => void onOk()}
      onCancel={onClose}
      okButtonProps={{ ...submit.buttonProps, 'data-testid': 'backup-create-ok' }}
      destroyOnHidden
    >
      <Form
        form={form}
        layout="vertical"
        initialValues={{ scope: scopes[0], backup_key_id: '' }}
        onValuesChange={() => setRefusal(null)}
      >
        <Form.Item name="scope" label={t('backup:backups.fields.scope')}>
          <Select
            data-testid="backup-scope"
            options={scopes.map((s) => ({ value: s, label: t(`backup:scopes.${s}`) }))}
          />
        </Form.Item>
        <Form.Item name="backup_key_id" label={t('backup:backups.fields.key')}>
          <Select
            data-testid="backup-key-select"
            options={[
              { value: '', label: t('backup:backups.fields.keyDefault') },
              ...usable.map((k) => ({
                value: k.id,
                label: `${k.name} (${t(`backup:scopes.${k.scope}`)}, ${k.kcv})`,
              })),
            ]}
          />
        </Form.Item>
        {scope === 'system' && (
          <Form.Item
            name="tied_to_hsm"
            valuePropName="checked"
            extra={t('backup:backups.fields.tiedToHsmHint')}
          >
            <Checkbox data-testid="backup-tied-to-hsm">{t('backup:backups.fields.tiedToHsm')}</Checkbox>
          </Form.Item>
        )}
        {scope === 'partial' && (
          <>
            <Form.Item
              name="key_ids"
              label={t('backup:backups.fields.keyIds')}
              extra={t('backup:backups.fields.keyIdsHint')}
            >
              <KeyPicker
                data-testid="backup-key-ids"
                placeholder={t('backup:backups.fields.keysPlaceholder')}
              />
            </Form.Item>
            <Form.Item name="key_name" label={t('backup:backups.fields.keyName')}>
              <Input maxLength={KEY_NAME.max} data-testid="backup-key-name-filter" />
            </Form.Item>
            <Form.Item name="cert_ids" label={t('backup:backups.fields.certIds')}>
              <CertPicker
                data-testid="backup-cert-ids"
                placeholder={t('backup:backups.fields.certsPlaceholder')}
              />
            </Form.Item>
          </>
        )}
        <Form.Item
          name="description"
          label={t('backup:backups.fields.description')}
          rules={[{ max: DESCRIPTION.max }]}
          validateStatus={refusal ? 'error' : undefined}
          help={refusal ?? undefined}
        >
          <Input maxLength={DESCRIPTION.max} data-testid="backup-description" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
