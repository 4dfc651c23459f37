import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Flex,
  Form,
  Input,
  Modal,
  Select,
  Space,
  Switch,
  Tag,
  Tooltip,
  Typography,
  Upload,
} from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, ROOT_DOMAIN, type BackupKeyRow, type BackupKeyScope } from '@ksp/contracts';
import {
  backupKeys,
  createBackupKey,
  deleteBackupKeys,
  downloadBackupKey,
  fetchBackupKeys,
  setDefaultBackupKey,
  uploadBackupKey,
} from '../../api/backup';
import { useSignedIn } from '../../api/session';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { saveBlob } from '../../components/save-blob';
import { limitsAt } from '../../components/schema-limits';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';

const NAME = limitsAt(api.backupKey.create.body!, ['name']);
const PASSWORD = limitsAt(api.backupKey.download.body!, ['password']);
const HINT = limitsAt(api.backupKey.download.body!, ['hint']);
const UPLOAD_PASSWORD = limitsAt(api.backupKey.upload.body!, ['password']);

function useScopes(): BackupKeyScope[] {
  const signedIn = useSignedIn();
  return signedIn?.userinfo.domain === ROOT_DOMAIN ? ['system', 'domain'] : ['domain'];
}

function CreateModal({ onClose }: { onClose: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const scopes = useScopes();
  const [form] = Form.useForm<{ name: string; scope: BackupKeyScope; is_default: boolean }>();
  const submit = useSubmit();
  const onOk = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    await submit.run(async () => {
      const row = await createBackupKey(values);
      void message.success(t('backup:keys.created', { name: row.name }));
      await queryClient.invalidateQueries({ queryKey: backupKeys.all });
      onClose();
    });
  };
  return (
    <Modal
      open
      title={t('backup:keys.createTitle')}
      okText={t('backup:keys.create')}
      cancelText={t('common:actions.cancel')}
      onOk={() => void onOk()}
      onCancel={onClose}
      okButtonProps={{ ...submit.buttonProps, 'data-testid': 'backup-key-create-ok' }}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" initialValues={{ scope: scopes[0], is_default: false }}>
        <Form.Item
          name="name"
          label={t('backup:keys.fields.name')}
          rules={[{ required: true, whitespace: true, max: NAME.max, message: t('backup:keys.rules.name') }]}
        >
          <Input data-testid="backup-key-name" maxLength={NAME.max} />
        </Form.Item>
        <Form.Item name="scope" label={t('backup:keys.fields.scope')}>
          <Select
            data-testid="backup-key-scope"
            options={scopes.map((s) => ({ value: s, label: t(`backup:scopes.${s}`) }))}
          />
        </Form.Item>
        <Form.Item name="is_default" label={t('backup:keys.fields.isDefault')} valuePropName="checked">
          <Switch data-testid="backup-key-default" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

function DownloadModal({ row, onClose }: { row: BackupKeyRow; onClose: () => void }) {
  const t = useT();
  const [form] = Form.useForm<{ password: string; again: string; hint: string }>();
  const submit = useSubmit();
  const onOk = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    await submit.run(async () => {
      const file = await downloadBackupKey({
        id: row.id,
        password: values.password,
        hint: values.hint ?? '',
      });
      saveBlob(file.filename ?? `backup-key-${row.name}.json`, file.blob);
      onClose();
    });
  };
  return (
    <Modal
      open
      title={t('backup:keys.downloadTitle', { name: row.name })}
      okText={t('backup:keys.download')}
      cancelText={t('common:actions.cancel')}
      onOk={() => void onOk()}
      onCancel={onClose}
      okButtonProps={{ ...submit.buttonProps, 'data-testid': 'backup-key-download-ok' }}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('backup:keys.downloadHint')}</Typography.Paragraph>
      <Form form={form} layout="vertical">
        <Form.Item
          name="password"
          label={t('backup:keys.fields.password')}
          rules={[
            {
              required: true,
              min: PASSWORD.min,
              max: PASSWORD.max,
              message: t('backup:keys.rules.password'),
            },
          ]}
        >
          <Input.Password data-testid="backup-key-password" autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          name="again"
          label={t('backup:keys.fields.passwordAgain')}
          dependencies={['password']}
          rules={[
            { required: true, message: t('backup:keys.rules.mismatch') },
            ({ getFieldValue }) => ({
              validator: (_, value) =>
                value === getFieldValue('password')
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('backup:keys.rules.mismatch'))),
            }),
          ]}
        >
          <Input.Password data-testid="backup-key-password-again" autoComplete="new-password" />
        </Form.Item>
        <Form.Item name="hint" label={t('backup:keys.fields.hint')} rules={[{ max: HINT.max }]}>
          <Input data-testid="backup-key-hint" maxLength={HINT.max} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

function UploadModal({ onClose }: { onClose: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ password: string }>();
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const submit = useSubmit();
  const onOk = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    if (!file) {
      setRefusal(t('backup:keys.rules.file'));
      return;
    }
    await submit.run(async () => {
      setRefusal(null);
      try {
        const row = await uploadBackupKey({ file: file.text, password: values.password });
        void message.success(t('backup:keys.uploaded', { name: row.name }));
        await queryClient.invalidateQueries({ queryKey: backupKeys.all });
        onClose();
      } catch (error) {
        setRefusal(error instanceof Error ? error.message : String(error));
        throw error;
      }
    });
  };
  return (
    <Modal
      open
      title={t('backup:keys.uploadTitle')}
      okText={t('backup:keys.upload')}
      cancelText={t('common:actions.cancel')}
      onOk={() => void onOk()}
      onCancel={onClose}
      okButtonProps={{ ...submit.buttonProps, 'data-testid': 'backup-key-upload-ok' }}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onValuesChange={() => setRefusal(null)}>
        <Form.Item
          label={t('backup:keys.fields.file')}
          validateStatus={refusal ? 'error' : undefined}
          help={refusal}
        >
          <Upload
            accept=".json,application/json"
            maxCount={1}
            showUploadList={false}
            beforeUpload={(chosen) => {
              void chosen.text().then((text) => setFile({ name: chosen.name, text }));
              setRefusal(null);
              return false;
            }}
          >
            <Space>
              <Button data-testid="backup-key-file">{t('backup:keys.fields.file')}</Button>
              {file && <Typography.Text>{file.name}</Typography.Text>}
            </Space>
          </Upload>
        </Form.Item>
        <Form.Item
          name="password"
          label={t('backup:keys.fields.password')}
          rules={[{ required: true, max: UPLOAD_PASSWORD.max, message: t('backup:keys.rules.password') }]}
        >
          <Input.Password data-testid="backup-key-upload-password" autoComplete="off" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** Settings › backup keys: generate, upload, download under a password, default, delete. */
export default function BackupKeyPage() {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.backupKey.create);
  const [dialog, setDialog] = useState<'create' | 'upload' | null>(null);
  const [downloading, setDownloading] = useState<BackupKeyRow | null>(null);

  const makeDefault = async (row: BackupKeyRow) => {
    await setDefaultBackupKey(row.id);
    void message.success(
      t('backup:keys.madeDefault', { name: row.name, scope: t(`backup:scopes.${row.scope}`) }),
    );
    await queryClient.invalidateQueries({ queryKey: backupKeys.all });
  };

  const columns: ColumnsType<BackupKeyRow> = [
    { key: 'name', title: t('backup:keys.columns.name'), dataIndex: 'name' },
    { key: 'scope', title: t('backup:keys.columns.scope'), render: (_, r) => t(`backup:scopes.${r.scope}`) },
    {
      key: 'domain',
      title: t('backup:keys.columns.domain'),
      render: (_, r) =>
        r.orphaned ? (
          <Space size={4}>
            {r.domain}
            <Tooltip title={t('backup:keys.orphanedHint')}>
              <Tag color="orange" data-testid={`backup-key-orphaned-${r.id}`}>
                {t('backup:keys.orphaned')}
              </Tag>
            </Tooltip>
          </Space>
        ) : (
          r.domain
        ),
    },
    {
      key: 'kcv',
      title: t('backup:keys.columns.kcv'),
      render: (_, r) => <Typography.Text code>{r.kcv}</Typography.Text>,
    },
    {
      key: 'default',
      title: t('backup:keys.columns.isDefault'),
      render: (_, r) =>
        r.is_default ? (
          <Tag color="blue" data-testid={`backup-key-default-${r.name}`}>
            {t('backup:keys.defaultTag')}
          </Tag>
        ) : null,
    },
    {
      key: 'created',
      title: t('backup:keys.columns.createdAt'),
      render: (_, r) => formatDateTime(r.created_at),
    },
    { key: 'by', title: t('backup:keys.columns.createdBy'), dataIndex: 'created_by' },
    ...(canWrite
      ? [
          {
            key: 'actions',
            title: t('backup:keys.columns.actions'),
            render: (_: unknown, r: BackupKeyRow) => (
              <Space size={0}>
                <Button
                  type="link"
                  onClick={() => setDownloading(r)}
                  data-testid={`backup-key-download-${r.name}`}
                >
                  {t('backup:keys.download')}
                </Button>
                {!r.is_default && (
                  <Button
                    type="link"
                    onClick={() => void makeDefault(r)}
                    data-testid={`backup-key-set-default-${r.name}`}
                  >
                    {t('backup:keys.setDefault')}
                  </Button>
                )}
              </Space>
            ),
          },
        ]
      : []),
  ];

  return (
    <Flex vertical gap={16}>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('backup:keys.hint')}
      </Typography.Paragraph>
      <ListPage<BackupKeyRow>
        title={t('backup:keys.title')}
        queryKey={backupKeys.keys}
        fetchPage={({ page, page_size }) => fetchBackupKeys({ page, page_size })}
        rowKey="id"
        columns={columns}
        toolbar={
          canWrite && (
            <Space>
              <ListAddButton onClick={() => setDialog('create')} testId="backup-key-add" />
              <Button onClick={() => setDialog('upload')} data-testid="backup-key-upload">
                {t('backup:keys.upload')}
              </Button>
            </Space>
          )
        }
        onDelete={canWrite ? (ids) => deleteBackupKeys(ids) : undefined}
        testId="backup-key"
        rowTestId={(r) => `backup-key-row-${r.name}`}
      />
      {dialog === 'create' && <CreateModal onClose={() => setDialog(null)} />}
      {dialog === 'upload' && <UploadModal onClose={() => setDialog(null)} />}
      {downloading && <DownloadModal row={downloading} onClose={() => setDownloading(null)} />}
    </Flex>
  );
}
