import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Form } from 'antd';
import { api, type ProfileRow } from '@ksp/contracts';
import { ApiError } from '../../api/api-error';
import { fetchProfile, listElements, tdePolicyKeys, updateProfile } from '../../api/tde-policy';
import { useCanCall } from '../../components/permissions';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { CUSTOM_SCHEDULES } from './profile-qos-card';

/** The form values of a profile: its settings. */
export type ProfileValues = Omit<
  ProfileRow,
  'id' | 'name' | 'is_default' | 'rwp_process_set_name' | 'users' | 'created_at' | 'updated_at'
>;
/** A syslog server of the form: as read, with the private key typed in (if any). */
export type ServerValues = ProfileValues['syslog_settings']['servers'][number] & { privatekey?: string };

/**
 * The form field a refusal names (`syslog_settings.servers[0].name: …` or `ldt_qos.cpu_percent: …`),
 * as a form name path; undefined when the message names none.
 */
export function fieldOfMessage(msg: string): (string | number)[] | undefined {
  const m = /^([a-z_]+(?:(?:\.[a-z_0-9]+)|(?:\[\d+\]))*)\s*[:：]/i.exec(msg);
  if (!m?.[1]) return undefined;
  return m[1]
    .split(/[.[\]]/)
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/** A client profile (by name) in its form: loaded, watched where the form depends on it, and saved. */
export function useProfileForm(name: string) {
  const t = useT();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const submit = useSubmit();
  const canWrite = useCanCall(api.tdePolicy.profileUpdate);
  const [form] = Form.useForm<ProfileValues>();
  const detail = useQuery({ queryKey: tdePolicyKeys.profile(name), queryFn: () => fetchProfile(name) });
  const row = detail.data;
  const processSets =
    useQuery({
      queryKey: [...tdePolicyKeys.elements, 'cte', 'process', 'options'],
      queryFn: () => listElements('cte', { kind: 'process', page: 1, page_size: 1000 }),
    }).data?.data ?? [];

  useEffect(() => {
    if (row) form.setFieldsValue(row);
  }, [row, form]);

  const servers = Form.useWatch<(string | undefined)[] | undefined>(['syslog_settings', 'servers'], {
    form,
    preserve: true,
  });
  const schedule = Form.useWatch<string | undefined>(['ldt_qos', 'ldt_qos_schedule'], form);
  const save = (v: ProfileValues) =>
    submit.run(async () => {
      const servers = ((v.syslog_settings?.servers ?? []) as ServerValues[]).map(
        ({ has_private_key: _stored, privatekey, ...server }) => ({
          ...server,
          cacertificate: server.cacertificate ?? '',
          certificate: server.certificate ?? '',
          // Left empty: the stored key is kept (the server drops it without a certificate).
          ...(privatekey?.trim() ? { privatekey } : {}),
        }),
      );
      const custom = CUSTOM_SCHEDULES.includes(v.ldt_qos.ldt_qos_schedule);
      try {
        const saved = await updateProfile({
          ...v,
          name,
          description: (v.description ?? '').trim(),
          syslog_settings: { ...v.syslog_settings, servers },
          ldt_qos: {
            ...v.ldt_qos,
            qos_schedules: custom ? (v.ldt_qos.qos_schedules ?? []) : [],
            rekey_rate_mbps: v.ldt_qos.rekey_rate_mbps ?? null,
            cpu_percent: v.ldt_qos.cpu_percent ?? null,
          },
        });
        void message.success(t('tdePolicy:profiles.saved', { name: saved.name }));
        await queryClient.invalidateQueries({ queryKey: tdePolicyKeys.profiles });
      } catch (err) {
        // The refusal names its field: show it there too (the message was shown already).
        const field = err instanceof ApiError ? fieldOfMessage(err.message) : undefined;
        if (field && err instanceof Error) form.setFields([{ name: field as never, errors: [err.message] }]);
        throw err;
      }
    });
  return { form, detail, row, processSets, servers, schedule, save, submit, canWrite };
}
