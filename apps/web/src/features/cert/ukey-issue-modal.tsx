import { Alert, Button, Form, Modal, Steps } from 'antd';
import { useT } from '../../i18n/i18n';
import { IssuedCertificates } from './ukey-issued-certificates';
import { UkeyIssueFields } from './ukey-issue-fields';
import { ukeySteps, useUkeyIssue, type UkeyValues } from './use-ukey-issue';

const initialValues: Partial<UkeyValues> = {
  ukey_type: 'PKCS#11',
  algorithm: 'RSA-2048',
  spec: 'single',
  validity_days: 365,
};

/**
 * Issue a user's UKEY certificates (docs/modules.md#ukey-certificates) in three steps: the UKEY
 * makes its signing key pair and request through the local bridge, the server issues the
 * certificate(s) and binds the UKEY to the user, the bridge writes them to the UKEY. The PIN
 * goes to the bridge only; the form is unmounted with the modal, so nothing keeps it.
 */
export function UkeyIssueModal({
  onClose,
  onIssued,
}: {
  onClose: () => void;
  onIssued: () => Promise<unknown>;
}) {
  const t = useT();
  const [form] = Form.useForm<UkeyValues>();
  const algorithm = Form.useWatch('algorithm', form) ?? 'RSA-2048';
  const issue = useUkeyIssue(form, onIssued);
  const { running, current, failure, issued, done, submit, stepStatus } = issue;
  const locked = issued !== null;
  const footer = done
    ? [
        <Button key="close" type="primary" onClick={onClose} data-testid="ukey-issue-close">
          {t('cert:common.close')}
        </Button>,
      ]
    : [
        <Button key="cancel" onClick={onClose} data-testid="ukey-issue-cancel">
          {t('common:actions.cancel')}
        </Button>,
        <Button
          key="ok"
          type="primary"
          loading={running}
          onClick={() => form.submit()}
          data-testid={locked ? 'ukey-install-retry' : 'ukey-issue-ok'}
        >
          {locked ? t('cert:ukey.installAgain') : t('cert:ukey.submit')}
        </Button>,
      ];

  return (
    <Modal
      open
      title={t('cert:ukey.title')}
      width={760}
      onCancel={onClose}
      mask={{ closable: !running }}
      footer={footer}
      destroyOnHidden
    >
      <div data-testid="ukey-issue-form">
        {current !== null && (
          <Steps
            size="small"
            current={Math.min(current, 2)}
            style={{ marginBottom: 16 }}
            items={ukeySteps.map((step, index) => ({
              title: (
                <span data-testid={`ukey-step-${step}`} data-status={stepStatus(index)}>
                  {t(`cert:ukey.steps.${step}`)}
                </span>
              ),
              status: stepStatus(index),
            }))}
          />
        )}
        {failure && (
          <Alert
            type="error"
            showIcon
            title={failure.text}
            description={failure.step === 'install' ? t('cert:ukey.installAgainHint') : undefined}
            style={{ marginBottom: 16 }}
            data-testid="ukey-issue-error"
          />
        )}
        {done && issued ? (
          <IssuedCertificates issued={issued} />
        ) : (
          <Form<UkeyValues>
            form={form}
            layout="vertical"
            initialValues={initialValues}
            disabled={running}
            onValuesChange={(changed) => {
              // Dual certificates are for SM2 only: another algorithm goes back to single.
              if (changed.algorithm && changed.algorithm !== 'SM2') form.setFieldValue('spec', 'single');
            }}
            onFinish={(values) => void submit(values)}
          >
            {!locked && <Alert type="info" title={t('cert:ukey.intro')} style={{ marginBottom: 16 }} />}
            <UkeyIssueFields algorithm={algorithm} locked={locked} issue={issue} />
          </Form>
        )}
      </div>
    </Modal>
  );
}
