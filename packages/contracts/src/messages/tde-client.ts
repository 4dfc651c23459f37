import { defineMessages } from './define.js';

/** TDE / RDM clients, client groups and guard points. */
export const tdeClientMessages = defineMessages({
  en: {
    'tdeClient.groupNotFound': 'Client group {id} not found',
    'tdeClient.groupNameTaken': "name: client group '{name}' already exists",
    'tdeClient.groupHasGuardPoints':
      'Client group {name} still has {count} guard points: unguard them before deleting the group',
    'tdeClient.guardPointNotFound': 'Guard point {id} not found',
    'tdeClient.target':
      'client_id: give exactly one of client_id and group_id (client groups exist in the TDE console only)',
    'tdeClient.pathGuarded': 'path: {path} is already guarded for client {client} ({origin})',
    'tdeClient.groupPathGuarded': 'path: {path} is already guarded by group {group}',
    'tdeClient.policyRequired': 'policy_id: a {type} guard point needs a policy',
    'tdeClient.policyNotAllowed': 'policy_id: a ransomware protection (rwp) guard point takes no policy',
    'tdeClient.policyNotFound': 'policy_id: policy {id} not found in this domain',
    'tdeClient.policyType':
      'policy_id: policy {name} is of type {actual}; this guard point accepts {allowed}',
    'tdeClient.profileNotFound': 'profile: client profile {name} not found in this domain',
    'tdeClient.authBinaryDuplicate': 'entries[{index}].filename: {filename} is listed twice',
    'tdeClient.signatureSetNotFound':
      'entries[{index}].signature_set_id: signature set {id} not found in this domain',
  },
  zh: {
    'tdeClient.groupNotFound': '客户端组 {id} 不存在',
    'tdeClient.groupNameTaken': 'name：客户端组“{name}”已存在',
    'tdeClient.groupHasGuardPoints': '客户端组 {name} 仍有 {count} 个防护点：请先取消防护再删除该组',
    'tdeClient.guardPointNotFound': '防护点 {id} 不存在',
    'tdeClient.target': 'client_id：client_id 与 group_id 须且只能给出其一（客户端组仅在 TDE 控制台中存在）',
    'tdeClient.pathGuarded': 'path：{path} 已在客户端 {client} 上受防护（{origin}）',
    'tdeClient.groupPathGuarded': 'path：{path} 已由客户端组 {group} 防护',
    'tdeClient.policyRequired': 'policy_id：{type} 类型的防护点需要策略',
    'tdeClient.policyNotAllowed': 'policy_id：勒索防护（rwp）防护点不接受策略',
    'tdeClient.policyNotFound': 'policy_id：本域中不存在策略 {id}',
    'tdeClient.policyType': 'policy_id：策略 {name} 的类型为 {actual}；此防护点只接受 {allowed}',
    'tdeClient.profileNotFound': 'profile：本域中不存在客户端配置文件 {name}',
    'tdeClient.authBinaryDuplicate': 'entries[{index}].filename：{filename} 重复出现',
    'tdeClient.signatureSetNotFound': 'entries[{index}].signature_set_id：本域中不存在签名集 {id}',
  },
});
