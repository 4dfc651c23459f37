import { defineMessages } from './define.js';

/** Domains and their members. */
export const domainMessages = defineMessages({
  en: {
    'domain.outOfReach': "You may only manage members of your current domain ('{domain}')",
    'domain.notFound': "Domain '{domain}' not found",
    'domain.nameTaken': "Domain '{domain}' already exists",
    'domain.notMemberOfCurrent': 'User {id} is not a member of the current domain',
    'domain.lastDomain': 'User {id} would belong to no domain; add it to another domain first',
    'domain.rootFixed': 'The root domain cannot be renamed or deleted',
    'domain.notEmpty': "Domain '{domain}' is not empty ({members} member(s), {objects} object(s))",
  },
  zh: {
    'domain.outOfReach': '您只能管理当前域（“{domain}”）的成员',
    'domain.notFound': '域“{domain}”不存在',
    'domain.nameTaken': '域“{domain}”已存在',
    'domain.notMemberOfCurrent': '用户 {id} 不是当前域的成员',
    'domain.lastDomain': '用户 {id} 将不属于任何域，请先将其加入其他域',
    'domain.rootFixed': '根域不能重命名或删除',
    'domain.notEmpty': '域“{domain}”不为空（{members} 个成员，{objects} 个对象）',
  },
});
