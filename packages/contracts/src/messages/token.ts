import { defineMessages } from './define.js';

/** Registration tokens. */
export const tokenMessages = defineMessages({
  en: {
    'token.notFound': 'Registration token {id} not found',
    'token.nameTaken': "Registration token '{name}' already exists",
    'token.expiryPast': 'expires_at: must be in the future (or "-" for forever)',
    'token.unknown': 'Unknown registration token',
    'token.expired': "Registration token '{name}' has expired",
    'token.exhausted': "Registration token '{name}' has no registrations left",
  },
  zh: {
    'token.notFound': '注册令牌 {id} 不存在',
    'token.nameTaken': '注册令牌“{name}”已存在',
    'token.expiryPast': 'expires_at：必须是将来的时间（或用“-”表示永久）',
    'token.unknown': '注册令牌无效',
    'token.expired': '注册令牌“{name}”已过期',
    'token.exhausted': '注册令牌“{name}”的可用次数已用完',
  },
});
