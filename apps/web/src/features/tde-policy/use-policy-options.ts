import { useQuery } from '@tanstack/react-query';
import { CLEAR_KEY, type PolicyDetail, type PolicyElementKind, type PolicyType } from '@ksp/contracts';
import { listElements, listKeyOptions, tdePolicyKeys, type PolicyArea } from '../../api/tde-policy';
import { useT } from '../../i18n/i18n';

/** The element sets and keys a policy's rules pick from, the options of their selects and their names. */
export type PolicyOptions = ReturnType<typeof usePolicyOptions>;

/** The element sets of the area and (a standard CTE policy) the keys, with their names for the tables. */
export function usePolicyOptions(area: PolicyArea, type: PolicyType, row: PolicyDetail | undefined) {
  const t = useT();
  const sets =
    useQuery({
      queryKey: [...tdePolicyKeys.elements, area, 'all-options'],
      queryFn: () => listElements(area, { page: 1, page_size: 1000 }),
    }).data?.data ?? [];
  const keys =
    useQuery({
      queryKey: tdePolicyKeys.keys,
      queryFn: listKeyOptions,
      enabled: area === 'cte' && type === 'standard',
    }).data ?? [];
  const setOptions = (kind: PolicyElementKind) =>
    sets.filter((s) => s.kind === kind).map((s) => ({ value: s.id, label: s.name }));
  const setName = (setId: string | null) =>
    setId ? (sets.find((s) => s.id === setId)?.name ?? setId) : null;
  const keyName = (keyId: string) =>
    keyId === CLEAR_KEY
      ? t('tdePolicy:fields.clearKey')
      : (keys.find((k) => k.id === keyId)?.name ??
        row?.key_rules.find((k) => k.key_id === keyId)?.key_name ??
        keyId);
  return { keys, setOptions, setName, keyName };
}
