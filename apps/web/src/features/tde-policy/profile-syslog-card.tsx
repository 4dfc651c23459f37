import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Form, Input, Select, Typography } from 'antd';
import type { FormListFieldData } from 'antd';
import {
  logThresholds,
  MAX_PROFILE_SYSLOG_SERVERS,
  profileSyslogFormats,
  profileSyslogProtocols,
  ProfileSyslogServerInput,
} from '@ksp/contracts';
import { limitsAt } from '../../components/schema-limits';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';
import { FieldsCard } from './fields-card';
import { SwitchItem } from './profile-fields';
import type { ServerValues } from './use-profile-form';

const NAME = limitsAt(ProfileSyslogServerInput, ['name']);
const PORT = limitsAt(ProfileSyslogServerInput, ['port']);

/** One syslog server of the profile: host, port, protocol, format and, over TLS, its certificates. */
function SyslogServer({
  field,
  index: i,
  server,
  remove,
}: {
  field: FormListFieldData;
  index: number;
  server: Partial<ServerValues>;
  remove: (name: number) => void;
}) {
  const t = useT();
  return (
    <Card size="small" data-testid={`syslog-server-${i}`}>
      <Flex gap={12} wrap align="start">
        <Form.Item
          name={[field.name, 'name']}
          label={t('tdePolicy:fields.serverName')}
          rules={[{ required: true, max: NAME.max }]}
          style={{ minWidth: 220 }}
        >
          <Input data-testid={`syslog-name-${i}`} maxLength={NAME.max} />
        </Form.Item>
        <WholeNumberField
          name={[field.name, 'port']}
          label={t('tdePolicy:fields.port')}
          range={PORT}
          testId={`syslog-port-${i}`}
        />
        <Form.Item
          name={[field.name, 'protocol']}
          label={t('tdePolicy:fields.protocol')}
          style={{ minWidth: 120 }}
        >
          <Select
            data-testid={`syslog-protocol-${i}`}
            options={profileSyslogProtocols.map((v) => ({ value: v, label: v }))}
          />
        </Form.Item>
        <Form.Item
          name={[field.name, 'message_format']}
          label={t('tdePolicy:fields.messageFormat')}
          style={{ minWidth: 140 }}
        >
          <Select
            data-testid={`syslog-format-${i}`}
            options={profileSyslogFormats.map((v) => ({ value: v, label: v }))}
          />
        </Form.Item>
        <Button
          icon={<DeleteOutlined />}
          aria-label={t('tdePolicy:actions.remove')}
          data-testid={`syslog-remove-${i}`}
          onClick={() => remove(field.name)}
          style={{ marginTop: 30 }}
        />
      </Flex>
      {server.protocol === 'TLS' && (
        <Flex gap={12} wrap>
          <Form.Item
            name={[field.name, 'cacertificate']}
            label={t('tdePolicy:fields.caCertificate')}
            rules={[{ required: true }]}
            style={{ flex: 1, minWidth: 260 }}
          >
            <Input.TextArea rows={4} data-testid={`syslog-ca-${i}`} />
          </Form.Item>
          <Form.Item
            name={[field.name, 'certificate']}
            label={t('tdePolicy:fields.clientCertificate')}
            style={{ flex: 1, minWidth: 260 }}
          >
            <Input.TextArea rows={4} data-testid={`syslog-cert-${i}`} />
          </Form.Item>
          <Form.Item
            name={[field.name, 'privatekey']}
            label={t('tdePolicy:fields.privateKey')}
            style={{ flex: 1, minWidth: 260 }}
          >
            <Input.TextArea
              rows={4}
              autoComplete="off"
              data-testid={`syslog-key-${i}`}
              placeholder={server.has_private_key ? t('tdePolicy:fields.privateKeyStored') : undefined}
            />
          </Form.Item>
        </Flex>
      )}
    </Card>
  );
}

/** The profile's syslog servers: up to two, each in its own card. */
function SyslogServers({ servers }: { servers: (string | undefined)[] | undefined }) {
  const t = useT();
  return (
    <>
      <Typography.Text strong>{t('tdePolicy:fields.syslogServers')}</Typography.Text>
      <Form.List name={['syslog_settings', 'servers']}>
        {(fields, { add, remove }) => (
          <Flex vertical gap={8} style={{ marginTop: 8 }}>
            {fields.length === 0 && (
              <Typography.Text type="secondary">{t('tdePolicy:fields.noSyslogServers')}</Typography.Text>
            )}
            {fields.map((field, i) => (
              <SyslogServer
                key={field.key}
                field={field}
                index={i}
                server={(servers?.[i] ?? {}) as unknown as Partial<ServerValues>}
                remove={remove}
              />
            ))}
            {fields.length < MAX_PROFILE_SYSLOG_SERVERS && (
              <Button
                icon={<PlusOutlined />}
                data-testid="syslog-add"
                onClick={() =>
                  add({
                    name: '',
                    port: 514,
                    protocol: 'UDP',
                    message_format: 'RFC5424',
                    cacertificate: '',
                    certificate: '',
                    has_private_key: false,
                  })
                }
                style={{ alignSelf: 'start' }}
              >
                {t('tdePolicy:actions.addServer')}
              </Button>
            )}
          </Flex>
        )}
      </Form.List>
    </>
  );
}

/** The profile's syslog settings: local logging, the threshold and up to two servers. */
export function ProfileSyslogCard({ servers }: { servers: (string | undefined)[] | undefined }) {
  const t = useT();
  return (
    <FieldsCard
      title={t('tdePolicy:sections.syslog')}
      testId="profile-syslog"
      below={<SyslogServers servers={servers} />}
    >
      <SwitchItem
        name={['syslog_settings', 'local']}
        label={t('tdePolicy:fields.syslogLocal')}
        testId="profile-syslog-local"
      />
      <Form.Item
        name={['syslog_settings', 'syslog_threshold']}
        label={t('tdePolicy:fields.syslogThreshold')}
        style={{ minWidth: 160 }}
      >
        <Select
          data-testid="profile-syslog-threshold"
          options={logThresholds.map((v) => ({ value: v, label: v }))}
        />
      </Form.Item>
    </FieldsCard>
  );
}
