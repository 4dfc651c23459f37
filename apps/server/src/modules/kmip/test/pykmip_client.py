"""Drives KSP's KMIP listener with PyKMIP's client (Debian python3-pykmip), for kmip.pykmip.test.ts.

Usage: python3 pykmip_client.py <host> <port> <cert> <key> <ca> <kmip version: 1.2|2.0> <scenario>
Prints one JSON object: what each step answered, or the error it raised.
"""
import json
import logging
import sys

from kmip.core import enums
from kmip.core.enums import KMIPVersion
from kmip.pie import client as pie_client
from kmip.pie import objects

logging.disable(logging.CRITICAL)

host, port, cert, key, ca, version, scenario = sys.argv[1:8]
kmip_version = {"1.2": KMIPVersion.KMIP_1_2, "2.0": KMIPVersion.KMIP_2_0}[version]
out = {}


def attribute_pairs(attrs):
    """[name, value] of each attribute answered (a Name's text, a Digest's value in hex)."""
    pairs = []
    for a in attrs:
        name, value = a.attribute_name.value, a.attribute_value
        if name == "Name":
            pairs.append([name, value.name_value.value])
        elif name == "Digest":
            pairs.append([name, value.digest_value.value.hex()])
        else:
            pairs.append([name, str(value)])
    return pairs


def step(name, fn):
    try:
        out[name] = fn()
    except Exception as err:  # the test reads the reason
        out[name] = {"error": type(err).__name__, "message": str(err)}
        return None
    return out[name]


with pie_client.ProxyKmipClient(
    hostname=host,
    port=int(port),
    cert=cert,
    key=key,
    ca=ca,
    config_file="/dev/null",
    kmip_version=kmip_version,
) as c:
    if scenario == "lifecycle":
        uid = step("create", lambda: c.create(
            enums.CryptographicAlgorithm.AES, 256, name="pykmip-" + version,
            cryptographic_usage_mask=[enums.CryptographicUsageMask.ENCRYPT, enums.CryptographicUsageMask.DECRYPT]))
        step("activate", lambda: c.activate(uid) or "ok")
        attrs = step("get_attributes", lambda: [
            [a.attribute_name.value, str(a.attribute_value)] for a in c.get_attributes(uid)[1]])
        step("attribute_list", lambda: sorted(c.get_attribute_list(uid)))
        step("get", lambda: c.get(uid).value.hex())
        def gcm():
            params = {"block_cipher_mode": enums.BlockCipherMode.GCM,
                      "cryptographic_algorithm": enums.CryptographicAlgorithm.AES,
                      "tag_length": 16}
            ct, iv_made = c.encrypt(b"gcm plaintext", uid=uid, cryptographic_parameters=params)
            return {"ciphertext": ct.hex(), "iv": iv_made.hex() if iv_made else None}
        step("gcm", gcm)
        iv = bytes(range(16))
        def cbc():
            params = {"block_cipher_mode": enums.BlockCipherMode.CBC,
                      "padding_method": enums.PaddingMethod.PKCS5,
                      "cryptographic_algorithm": enums.CryptographicAlgorithm.AES}
            ct, _ = c.encrypt(b"sixteen byte msg and more", uid=uid, cryptographic_parameters=params, iv_counter_nonce=iv)
            pt = c.decrypt(ct, uid=uid, cryptographic_parameters=params, iv_counter_nonce=iv)
            return {"ciphertext": ct.hex(), "plaintext": pt.decode()}
        step("cbc", cbc)
        step("locate", lambda: c.locate(attributes=[
            c.attribute_factory.create_attribute(enums.AttributeType.NAME, "pykmip-" + version)]))
        step("revoke", lambda: c.revoke(enums.RevocationReasonCode.CESSATION_OF_OPERATION, uid) or "ok")
        step("destroy", lambda: c.destroy(uid) or "ok")
        step("get_destroyed", lambda: c.get(uid).value.hex())
        out["uid"] = uid
    elif scenario == "pair":
        pub, priv = step("create_key_pair", lambda: list(c.create_key_pair(
            enums.CryptographicAlgorithm.RSA, 2048, public_name="pair-" + version + ".pub",
            private_name="pair-" + version,
            public_usage_mask=[enums.CryptographicUsageMask.VERIFY],
            private_usage_mask=[enums.CryptographicUsageMask.SIGN]))) or (None, None)
        out["public"], out["private"] = pub, priv
        step("activate", lambda: c.activate(priv) or "ok")
        params = {"padding_method": enums.PaddingMethod.PSS,
                  "hashing_algorithm": enums.HashingAlgorithm.SHA_256,
                  "cryptographic_algorithm": enums.CryptographicAlgorithm.RSA,
                  "digital_signature_algorithm": enums.DigitalSignatureAlgorithm.SHA256_WITH_RSA_ENCRYPTION}
        sig = step("sign", lambda: c.sign(b"signed by KMIP", uid=priv, cryptographic_parameters=params).hex())
        step("verify", lambda: str(c.signature_verify(b"signed by KMIP", bytes.fromhex(sig), uid=pub,
                                                     cryptographic_parameters=params)))
        step("verify_bad", lambda: str(c.signature_verify(b"not what was signed", bytes.fromhex(sig), uid=pub,
                                                         cryptographic_parameters=params)))
        step("get_public", lambda: c.get(pub).value.hex())
    elif scenario == "register":
        key = objects.SymmetricKey(enums.CryptographicAlgorithm.AES, 128, bytes(range(16)), name="registered-" + version)
        uid = step("register", lambda: c.register(key))
        out["uid"] = uid
        step("activate", lambda: c.activate(uid) or "ok")
        step("get", lambda: c.get(uid).value.hex())
        step("mac_wrong_key", lambda: c.mac(b"data", uid=uid, algorithm=enums.CryptographicAlgorithm.HMAC_SHA256)[1].hex())
    elif scenario == "wrapped":
        # Get of sys.argv[8] wrapped by the AES key sys.argv[9] (AES Key Wrap with Padding).
        spec = {
            "wrapping_method": enums.WrappingMethod.ENCRYPT,
            "encryption_key_information": {
                "unique_identifier": sys.argv[9],
                "cryptographic_parameters": {"block_cipher_mode": enums.BlockCipherMode.AES_KEY_WRAP_PADDING},
            },
            "encoding_option": enums.EncodingOption.NO_ENCODING,
        }
        step("get_wrapped", lambda: c.get(sys.argv[8], key_wrapping_specification=spec).value.hex())
    elif scenario == "denied":
        step("create", lambda: c.create(enums.CryptographicAlgorithm.AES, 128, name="denied-" + version))
    elif scenario == "objects":
        # Certificates (sys.argv[8]: a CA certificate's DER file, destroyed; [9]: another, kept;
        # [10]: a leaf certificate's, destroyed) and Secret Data (a Password, destroyed; a Seed, kept).
        der = lambda path: open(path, "rb").read()
        # PyKMIP 2.0 cannot read Certificate Type or Link items back: ask 2.0 for the others.
        names_v2 = ["Unique Identifier", "Name", "Object Type", "State", "Certificate Length", "Digest"]
        def attributes(uid):
            asked = names_v2 if version == "2.0" else None
            return attribute_pairs(c.get_attributes(uid, asked)[1])
        of_type = lambda t: c.attribute_factory.create_attribute(enums.AttributeType.OBJECT_TYPE, t)
        named = lambda n: c.attribute_factory.create_attribute(enums.AttributeType.NAME, n)
        cert = step("register_cert", lambda: c.register(objects.X509Certificate(der(sys.argv[8]), name="ca-a-" + version)))
        out["cert"] = cert
        step("get_cert", lambda: c.get(cert).value.hex())
        step("cert_attributes", lambda: attributes(cert))
        step("cert_attribute_list", lambda: sorted(c.get_attribute_list(cert)))
        step("locate_certificates", lambda: c.locate(attributes=[of_type(enums.ObjectType.CERTIFICATE)]))
        step("locate_cert_by_name", lambda: c.locate(attributes=[named("ca-a-" + version)]))
        step("activate_cert", lambda: c.activate(cert) or "ok")
        step("register_kept_cert", lambda: c.register(objects.X509Certificate(der(sys.argv[9]), name="ca-b-" + version)))
        leaf = step("register_leaf", lambda: c.register(objects.X509Certificate(der(sys.argv[10]), name="leaf-" + version)))
        step("get_leaf", lambda: c.get(leaf).value.hex())
        step("leaf_attributes", lambda: attributes(leaf))
        step("leaf_attribute_list", lambda: sorted(c.get_attribute_list(leaf)))
        step("locate_leaf_by_name", lambda: c.locate(attributes=[named("leaf-" + version)]))
        step("locate_certificates_with_leaf", lambda: c.locate(attributes=[of_type(enums.ObjectType.CERTIFICATE)]))
        step("destroy_leaf", lambda: c.destroy(leaf) or "ok")
        step("get_destroyed_leaf", lambda: c.get(leaf).value.hex())
        step("register_not_der", lambda: c.register(objects.X509Certificate(b"-----BEGIN CERTIFICATE-----", name="bad-" + version)))
        step("destroy_cert", lambda: c.destroy(cert) or "ok")
        step("get_destroyed_cert", lambda: c.get(cert).value.hex())

        password = "correct horse \u2713 " + version
        pw = step("register_password", lambda: c.register(objects.SecretData(
            password.encode(), enums.SecretDataType.PASSWORD, name="pw-" + version)))
        out["password"] = pw
        def get_secret(uid):
            got = c.get(uid)
            return {"type": got.data_type.name, "value": got.value.hex()}
        step("get_password", lambda: get_secret(pw))
        step("password_attributes", lambda: attributes(pw))
        seed_bytes = bytes(range(255, 207, -1))  # 48 bytes, not UTF-8
        seed = step("register_seed", lambda: c.register(objects.SecretData(
            seed_bytes, enums.SecretDataType.SEED, name="seed-" + version)))
        out["seed"] = seed
        step("get_seed", lambda: get_secret(seed))
        step("register_bad_password", lambda: c.register(objects.SecretData(
            b"\xff\xfe not text", enums.SecretDataType.PASSWORD, name="bad-pw-" + version)))
        step("locate_secrets", lambda: c.locate(attributes=[of_type(enums.ObjectType.SECRET_DATA)]))
        step("locate_seed_by_name", lambda: c.locate(attributes=[named("seed-" + version)]))
        step("destroy_password", lambda: c.destroy(pw) or "ok")
        step("get_destroyed_password", lambda: get_secret(pw))
    elif scenario == "get_other":
        step("get", lambda: c.get(sys.argv[8]).value.hex())
        step("destroy", lambda: c.destroy(sys.argv[8]) or "ok")
print(json.dumps(out))
