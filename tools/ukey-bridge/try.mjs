import * as g from 'graphene-pk11';
const mod = g.Module.load('/usr/lib/softhsm/libsofthsm2.so','s'); mod.initialize();
const slot = mod.getSlots(true).items(0);
const s = slot.open(g.SessionFlag.SERIAL_SESSION|g.SessionFlag.RW_SESSION);
s.login('123456');
// SM2 curve OID 1.2.156.10197.1.301 DER
const params = Buffer.from('06082a811ccf5501822d','hex');
const kp = s.generateKeyPair(g.KeyGenMechanism.EC, {keyType: g.KeyType.EC, token:true, verify:true, derive:true, paramsEC: params, id: Buffer.from('02')}, {keyType: g.KeyType.EC, token:true, sign:true, derive:true, sensitive:true, extractable:false, private:true, id: Buffer.from('02')});
const pt = kp.publicKey.getAttribute({pointEC:null}).pointEC; console.log('point', pt.toString('hex'));
// ECDH derive
const other = Buffer.from(pt); // derive with itself
const mech = {name:'ECDH1_DERIVE', params: new g.EcdhParams(g.EcKdf.NULL, null, other)};
const k = s.deriveKey(mech, kp.privateKey, {class: g.ObjectClass.SECRET_KEY, keyType: g.KeyType.GENERIC_SECRET, token:false, extractable:true, sensitive:false, valueLen: 32});
console.log('secret', k.getAttribute({value:null}).value.toString('hex'));
const sig = s.createSign('ECDSA', kp.privateKey).once(Buffer.alloc(32,1)); console.log('ecdsa sig', sig.length);
s.logout(); s.close(); mod.finalize();
