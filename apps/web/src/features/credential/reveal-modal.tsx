import { useEffect, useState } from 'react';
import { Alert, Button, Flex, Form, Input, Modal, Typography } from 'antd';
import { REVEAL_SECONDS } from '@ksp/contracts';
import { revealCredential } from '../../api/credential';
import { CopyButton } from '../../components/copy-button';
import { useSubmit } from '../../components/use-submit';
import { requiredRule } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';

export interface RevealTarget {
  id: string;
  name: string;
  version: number;
}

/**
 * Reveal: the user types their password again; the value shows for 30 seconds with a copy
 * button, then it is dropped from the page. Closing the dialog drops it at once.
 */
export function RevealModal({ target, onClose }: { target: RevealTarget | null; onClose: () => void }) {
  const t = useT();
  const [form] = Form.useForm<{ password: string }>();
  const submit = useSubmit();
  const [value, setValue] = useState<string | null>(null);
  const [left, setLeft] = useState(0);
  const [hidden, setHidden] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);

  useEffect(() => {
    if (value === null) return;
    const timer = setInterval(() => {
      setLeft((s) => {
        if (s <= 1) {
          setValue(null);
          setHidden(true);
          return 0;
        }
        return s - 1;
      });
    }, 1000);
    return () => clearInterval(timer);
  }, [value]);

  const close = () => {
    setValue(null);
    setHidden(false);
    setRefusal(null);
    onClose();
  };

  const onOk = async () => {
    if (!target) return;
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    await submit.run(async () => {
      setRefusal(null);
      try {
        const answer = await revealCredential(target.id, target.version, values.password);
        form.resetFields();
        setHidden(false);
        setLeft(REVEAL_SECONDS);
        setValue(answer.value);
      } catch (error) {
        setRefusal(error instanceof Error ? error.message : String(error));
        throw error;
      }
    });
  };

  const asking = value === null && !hidden;
  return (
    <Modal
      open={target !== null}
      title={target ? t('credential:revealTitle', { name: target.name, version: target.version }) : ''}
      onCancel={close}
      destroyOnHidden
      width={640}
      footer={
        asking ? (
          <Flex justify="end" gap={8}>
            <Button onClick={close}>{t('common:actions.cancel')}</Button>
            <Button
              type="primary"
              onClick={() => void onOk()}
              {...submit.buttonProps}
              data-testid="cred-reveal-ok"
            >
              {t('credential:reveal')}
            </Button>
          </Flex>
        ) : (
          <Button onClick={close} data-testid="cred-reveal-close">
            {t('credential:close')}
          </Button>
        )
      }
    >
      {asking && (
        <Form
          form={form}
          layout="vertical"
          onValuesChange={() => setRefusal(null)}
          onFinish={() => void onOk()}
        >
          <Typography.Paragraph type="secondary">{t('credential:revealHint')}</Typography.Paragraph>
          <Form.Item
            name="password"
            label={t('credential:yourPassword')}
            rules={[requiredRule(t('credential:yourPassword'))]}
          >
            <Input.Password autoComplete="current-password" autoFocus data-testid="cred-reveal-password" />
          </Form.Item>
          {refusal && <Alert type="error" showIcon title={refusal} data-testid="cred-reveal-refusal" />}
        </Form>
      )}
      {value !== null && (
        <Flex vertical gap={12}>
          <Alert
            type="warning"
            showIcon
            title={t('credential:revealed', { seconds: left })}
            data-testid="cred-reveal-countdown"
          />
          <Typography.Paragraph
            code
            style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: 0, fontSize: 14 }}
            data-testid="cred-reveal-value"
          >
            {value}
          </Typography.Paragraph>
          <Flex gap={8}>
            <CopyButton text={value} testId="cred-reveal-copy" />
            <Button
              onClick={() => {
                setValue(null);
                setHidden(true);
              }}
              data-testid="cred-reveal-hide"
            >
              {t('credential:hide')}
            </Button>
          </Flex>
        </Flex>
      )}
      {hidden && value === null && (
        <Alert type="info" showIcon title={t('credential:hidden')} data-testid="cred-reveal-hidden" />
      )}
    </Modal>
  );
}
