import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Flex, Form, Input, Typography } from 'antd';
import { fetchPublicConfig } from '../../api/config';
import { BridgeError, bridgeAddress, readBridgeCertificate, type BridgeCertificate } from '../../api/ukey';
import { useT } from '../../i18n/i18n';

/** Whether MFA is on in the public configuration (the UKEY step may be skipped only while it is off). */
export function mfaOn(entries: readonly { key: string; value: string }[] | undefined): boolean {
  return entries?.find((entry) => entry.key === 'MFA')?.value === '1';
}

/**
 * Activation's first step, "Verify UKEY": the UKEY bridge on this computer reads the
 * certificate of the UKEY plugged in; it is bound to the administrator the next step
 * creates (as the profile page binds one). Skippable only while MFA is off.
 */
export function ActivateUkeyStep({ onDone }: { onDone: (ukey: BridgeCertificate | null) => void }) {
  const t = useT();
  const config = useQuery({
    queryKey: ['activate', 'public-config'],
    queryFn: fetchPublicConfig,
    retry: false,
  });
  const configured =
    config.data && bridgeAddress(Object.fromEntries(config.data.map((e) => [e.key, e.value])));
  const [typed, setTyped] = useState<string | null>(null);
  const bridge = (typed ?? configured ?? bridgeAddress(undefined)).trim().replace(/\/+$/, '');
  const [ukey, setUkey] = useState<BridgeCertificate | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const skippable = config.isSuccess && !mfaOn(config.data);

  const read = async () => {
    setBusy(true);
    setProblem(null);
    setUkey(null);
    try {
      setUkey(await readBridgeCertificate(bridge));
    } catch (error) {
      if (!(error instanceof BridgeError)) throw error;
      setProblem(
        error.unreachable
          ? t('system:activate.bridgeUnreachable', { url: bridge })
          : t('system:activate.bridgeError', { error: error.message }),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <Flex vertical gap={16} data-testid="activate-ukey-step">
      <Alert type="info" showIcon title={t('system:activate.ukeyNote')} />
      <Form layout="vertical" component="div">
        <Form.Item label={t('system:activate.bridge')} style={{ marginBottom: 0 }}>
          <Input
            value={bridge}
            onChange={(event) => setTyped(event.target.value)}
            data-testid="activate-ukey-bridge"
          />
        </Form.Item>
      </Form>
      {problem && <Alert type="error" showIcon title={problem} data-testid="activate-ukey-error" />}
      {ukey && (
        <Alert
          type="success"
          showIcon
          title={t('system:activate.ukeyReady', { serial: ukey.serial })}
          data-testid="activate-ukey-ready"
        />
      )}
      <Typography.Text type="secondary" data-testid="activate-ukey-rule">
        {config.isSuccess ? (skippable ? t('system:activate.skipNote') : t('system:activate.mfaOn')) : null}
      </Typography.Text>
      <Flex justify="flex-end" gap={8} wrap>
        {skippable && (
          <Button onClick={() => onDone(null)} data-testid="activate-skip-ukey">
            {t('system:activate.skip')}
          </Button>
        )}
        <Button loading={busy} onClick={() => void read()} data-testid="activate-ukey-read">
          {t('system:activate.read')}
        </Button>
        <Button type="primary" disabled={!ukey} onClick={() => onDone(ukey)} data-testid="activate-ukey-next">
          {t('system:activate.next')}
        </Button>
      </Flex>
    </Flex>
  );
}
