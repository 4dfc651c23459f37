import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Form } from 'antd';
import { useNavigate, useParams } from 'react-router';
import {
  api,
  type PolicyAction,
  type PolicyDetail,
  type PolicyEffect,
  type PolicyType,
} from '@ksp/contracts';
import { createPolicy, fetchPolicy, tdePolicyKeys, updatePolicy } from '../../api/tde-policy';
import { ApiError } from '../../api/api-error';
import { useCanCall } from '../../components/permissions';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { policyPaths, usePolicyArea } from './area';
import { fieldsOfStep, stepOfError, stepsOf, type PolicyStep, type StepError } from './policy-wizard';

export interface Rule {
  user_set_id: string | null;
  process_set_id: string | null;
  resource_set_id: string | null;
  exclude_user_set: boolean;
  exclude_process_set: boolean;
  exclude_resource_set: boolean;
  actions: PolicyAction[];
  effects: PolicyEffect[];
}
export interface KeyRule {
  resource_set_id: string | null;
  key_id: string;
}
export interface General {
  name: string;
  description?: string;
  type: PolicyType;
  learn_mode: boolean;
  restrict_update: boolean;
  rdm_mode: 'audit' | 'block';
  trusted_process_set_ids: string[];
  threshold_files: number;
  threshold_window_s: number;
}

export const emptyRule: Rule = {
  user_set_id: null,
  process_set_id: null,
  resource_set_id: null,
  exclude_user_set: false,
  exclude_process_set: false,
  exclude_resource_set: false,
  actions: ['all_ops'],
  effects: ['permit'],
};

function rulesOf(d: PolicyDetail): Rule[] {
  return d.security_rules.map((r) => ({
    user_set_id: r.user_set_id,
    process_set_id: r.process_set_id,
    resource_set_id: r.resource_set_id,
    exclude_user_set: r.exclude_user_set,
    exclude_process_set: r.exclude_process_set,
    exclude_resource_set: r.exclude_resource_set,
    actions: r.actions,
    effects: r.effects,
  }));
}

/** What the policy editor works on: the loaded policy, its edited rules, the wizard's step, the save. */
export type PolicyDraft = ReturnType<typeof usePolicyDraft>;

/**
 * The draft of the policy editor: the policy loaded (an existing one), the general form, the rule
 * lists as edited, the wizard's step and the save. A refusal of the server brings the user back to
 * the step (and field) it names.
 */
export function usePolicyDraft() {
  const t = useT();
  const area = usePolicyArea();
  const paths = policyPaths(area);
  const { id } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const submit = useSubmit();
  const canWrite = useCanCall(area === 'rdm' ? api.rdmPolicy.policyUpdate : api.tdePolicy.policyUpdate);
  const [form] = Form.useForm<General>();
  // The rules as edited; null: as loaded (none for a new policy).
  const [editedRules, setEditedRules] = useState<Rule[] | null>(null);
  const [editedKeyRules, setEditedKeyRules] = useState<KeyRule[] | null>(null);
  // The wizard: the step shown, the furthest step reached (a new policy), a refusal to show.
  const [current, setCurrent] = useState(0);
  const [reached, setReached] = useState(0);
  const [stepError, setStepError] = useState<StepError | null>(null);
  // A rule list changed after a refusal: the row it named may have moved, so the mark goes.
  const setRules = (list: Rule[]) => {
    setEditedRules(list);
    setStepError((e) => (e?.step === 'rules' ? null : e));
  };
  const setKeyRules = (list: KeyRule[]) => {
    setEditedKeyRules(list);
    setStepError((e) => (e?.step === 'keys' ? null : e));
  };

  const detail = useQuery({
    queryKey: tdePolicyKeys.policy(id ?? ''),
    queryFn: () => fetchPolicy(area, id ?? ''),
    enabled: Boolean(id),
  });
  const row = detail.data;
  const rules = editedRules ?? (row ? rulesOf(row) : []);
  const keyRules =
    editedKeyRules ??
    (row ? row.key_rules.map((k) => ({ resource_set_id: k.resource_set_id, key_id: k.key_id })) : []);
  const watchedType = Form.useWatch<PolicyType | undefined>('type', { form, preserve: true });
  const type: PolicyType = watchedType ?? row?.type ?? (area === 'rdm' ? 'rdm' : 'standard');
  const steps = stepsOf(type);
  const step: PolicyStep = steps[current] ?? 'general';

  useEffect(() => {
    if (!row) return;
    form.setFieldsValue({
      name: row.name,
      description: row.description,
      type: row.type,
      learn_mode: row.learn_mode,
      restrict_update: row.restrict_update,
      rdm_mode: row.rdm?.mode ?? 'audit',
      trusted_process_set_ids: row.rdm?.trusted_process_set_ids ?? [],
      threshold_files: row.rdm?.threshold.files ?? 100,
      threshold_window_s: row.rdm?.threshold.window_s ?? 10,
    });
  }, [row, form]);

  // A field error of the server shows once the step holding the field is on screen.
  useEffect(() => {
    if (stepError?.field && stepError.step === step)
      form.setFields([{ name: stepError.field as keyof General, errors: [stepError.message] }]);
  }, [stepError, step, form]);

  /** Checks the fields of the step shown; true when they pass. */
  const validStep = async () => {
    try {
      await form.validateFields(fieldsOfStep[step] as (keyof General)[]);
      return true;
    } catch {
      return false;
    }
  };
  const goTo = async (index: number) => {
    if (index > current && !(await validStep())) return;
    setCurrent(index);
    setReached((r) => Math.max(r, index));
  };

  const save = (g: General) =>
    submit.run(async () => {
      setStepError(null);
      const body = {
        name: g.name.trim(),
        description: (g.description ?? '').trim(),
        learn_mode: Boolean(g.learn_mode),
        restrict_update: Boolean(g.restrict_update),
        security_rules: rules,
        key_rules: type === 'standard' ? keyRules : [],
        rdm:
          type === 'rdm'
            ? {
                mode: g.rdm_mode,
                trusted_process_set_ids: g.trusted_process_set_ids ?? [],
                threshold: { files: g.threshold_files, window_s: g.threshold_window_s },
              }
            : null,
      };
      let saved: PolicyDetail;
      try {
        saved = id ? await updatePolicy(area, { id, ...body }) : await createPolicy(area, { ...body, type });
      } catch (error) {
        if (error instanceof ApiError && error.code !== 0) {
          const where = stepOfError(error.code, error.message, steps);
          setStepError(where);
          setCurrent(Math.max(0, steps.indexOf(where.step)));
        }
        throw error;
      }
      void message.success(t('tdePolicy:policies.saved', { name: saved.name, revision: saved.revision }));
      await queryClient.invalidateQueries({ queryKey: tdePolicyKeys.all });
      if (!id) {
        // The saved policy opens as an existing one: on its first step.
        setCurrent(0);
        void navigate(paths.detail(saved.id), { replace: true });
      }
    });

  return {
    area,
    paths,
    id,
    detail,
    row,
    form,
    canWrite,
    disabled: !canWrite,
    rules,
    setRules,
    keyRules,
    setKeyRules,
    type,
    steps,
    step,
    current,
    setCurrent,
    reached,
    stepError,
    goTo,
    save,
    submit,
  };
}
