import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { FormInstance } from 'antd';
import type { ukeySpecs } from '@ksp/contracts';
import { ApiError } from '../../api/api-error';
import { issueUkeyCert, type UkeyIssueResult } from '../../api/cert';
import { configKeys, fetchPublicConfig } from '../../api/config';
import {
  BridgeError,
  bridgeAddress,
  bridgeInstall,
  bridgeKeygen,
  bridgeStatus,
  type BridgeKeygen,
  type UkeyAlgorithm,
} from '../../api/ukey';
import { useT } from '../../i18n/i18n';

type Spec = (typeof ukeySpecs)[number];

export interface UkeyValues {
  user?: { value: string; label: string };
  ukey_type: string;
  algorithm: UkeyAlgorithm;
  spec: Spec;
  serial?: string;
  pin: string;
  confirm: string;
  validity_days: number;
}

export const ukeySteps = ['keygen', 'issue', 'install'] as const;
type Step = (typeof ukeySteps)[number];

/** What the UKEY made: reused while the user, token and algorithm stay the same. */
interface Generated {
  for: string;
  keygen: BridgeKeygen;
}

/** The server's answer (the UKEY is bound from then on), kept to write it again. */
export interface Issued {
  result: UkeyIssueResult;
  serial: string;
  keyId: string;
  username: string;
}

/**
 * The three steps of a UKEY issue: the bridge's key pair and request, the server's certificate(s),
 * the bridge writing them to the UKEY; with the tokens plugged in and where a step failed.
 */
export function useUkeyIssue(form: FormInstance<UkeyValues>, onIssued: () => Promise<unknown>) {
  const t = useT();
  const [running, setRunning] = useState(false);
  const [current, setCurrent] = useState<number | null>(null);
  const [failure, setFailure] = useState<{ step: Step; text: string } | null>(null);
  const [generated, setGenerated] = useState<Generated | null>(null);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [done, setDone] = useState(false);

  // The bridge address: the public configuration entry UKEY_BRIDGE, as the UKEY login reads it.
  const config = useQuery({
    queryKey: [...configKeys.all, 'public'],
    queryFn: fetchPublicConfig,
    staleTime: 5 * 60_000,
    retry: false,
  });
  const bridge = bridgeAddress(
    Object.fromEntries((config.data ?? []).map((entry) => [entry.key, entry.value])),
  );
  const tokens = useQuery({
    queryKey: ['ukey-bridge', 'status', bridge],
    queryFn: () => bridgeStatus(bridge),
    enabled: !config.isPending,
    retry: false,
    staleTime: 0,
    gcTime: 0,
  });
  const tokenList = tokens.data ?? [];

  // One UKEY plugged in: it is the one.
  useEffect(() => {
    const only = tokens.data?.length === 1 ? tokens.data[0] : undefined;
    if (only && !form.getFieldValue('serial')) form.setFieldValue('serial', only.serial);
  }, [tokens.data, form]);

  const bridgeText = (error: unknown) =>
    error instanceof BridgeError
      ? error.unreachable
        ? t('cert:ukey.bridgeUnreachable', { url: bridge })
        : error.message
      : error instanceof ApiError
        ? error.message
        : '';

  const fail = (step: Step, error: unknown) => {
    const detail = bridgeText(error) || t('cert:ukey.unknownError');
    setFailure({ step, text: t(`cert:ukey.failed.${step}`, { error: detail }) });
  };

  const install = async (target: Issued, pin: string) => {
    setCurrent(2);
    try {
      const { signing, encryption, enveloped_key: envelopedKey } = target.result;
      await bridgeInstall(bridge, {
        pin,
        serial: target.serial,
        key_id: target.keyId,
        certificate: signing.certificate_pem,
        ...(encryption && envelopedKey
          ? { encryption_certificate: encryption.certificate_pem, enveloped_key: envelopedKey }
          : {}),
      });
    } catch (error) {
      fail('install', error);
      return;
    }
    setCurrent(3);
    setDone(true);
    await onIssued();
  };

  const submit = async (values: UkeyValues) => {
    setRunning(true);
    setFailure(null);
    try {
      if (issued) {
        await install(issued, values.pin);
        return;
      }
      const user = values.user;
      const serial = values.serial;
      if (!user || !serial) return;
      const username = user.label;

      setCurrent(0);
      const key = [user.value, serial, values.algorithm].join('\n');
      let keygen = generated?.for === key ? generated.keygen : null;
      if (!keygen) {
        try {
          keygen = await bridgeKeygen(bridge, {
            pin: values.pin,
            serial,
            algorithm: values.algorithm,
            common_name: username,
          });
        } catch (error) {
          fail('keygen', error);
          return;
        }
        setGenerated({ for: key, keygen });
      }

      setCurrent(1);
      let result: UkeyIssueResult;
      try {
        // The PIN stays here: the server gets the token's request, never the PIN.
        result = await issueUkeyCert({
          user_id: user.value,
          ukey_type: values.ukey_type,
          algorithm: values.algorithm,
          spec: values.algorithm === 'SM2' ? values.spec : 'single',
          serial: keygen.serial || serial,
          csr: keygen.csr,
          validity_days: values.validity_days,
        });
      } catch (error) {
        fail('issue', error);
        return;
      }
      const target: Issued = { result, serial: keygen.serial || serial, keyId: keygen.key_id, username };
      setIssued(target);
      await install(target, values.pin);
    } finally {
      setRunning(false);
    }
  };

  const stepStatus = (index: number): 'wait' | 'process' | 'finish' | 'error' => {
    if (current === null || index > current) return 'wait';
    if (index < current) return 'finish';
    if (failure?.step === ukeySteps[index]) return 'error';
    return running ? 'process' : 'finish';
  };

  return { bridgeText, tokens, tokenList, running, current, failure, issued, done, submit, stepStatus };
}
