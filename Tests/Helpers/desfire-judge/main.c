// desfire-judge: reads a MIFARE DESFire EV1 card through libnfc and libfreefare, an implementation independent of
// the kiosk's, and prints what it reads as simple lines. The tests run it against the PN532 emulator to check that
// the emulated card is a DESFire card as libfreefare knows one, and that what the kiosk wrote reads back the same.
//
//     desfire-judge CONNSTRING AID KEYNO KEY [--uid] [--commit-file FILE HEX]
//     desfire-judge CONNSTRING --factory AESKEY VERSION
//
// CONNSTRING is libnfc's (pn532_uart:/dev/pts/N), AID six hex digits as sent (least significant byte first), KEYNO
// the AES key to authenticate with in that application and KEY its 32 hex digits. Printed, in this order:
//
//     version HARDWARE SOFTWARE UID          (GetVersion: 7, 7 and 7 bytes in hex)
//     free N                                 (GetFreeMemory at the PICC level)
//     aids AID AID ...                       (GetApplicationIDs)
//     auth ok                                (AuthenticateAES with KEY)
//     carduid HEX                            (GetCardUID, with --uid)
//     files N N ...                          (GetFileIDs, decimal)
//     file N type=T comm=C access=HHHH size=S [max=M current=R]
//     data N HEX                             (ReadData of a whole data file)
//     record N I HEX                         (ReadRecords of a record file, oldest first, I from 0)
//
// With --commit-file FILE HEX it first writes HEX at offset 0 of data file FILE and commits.
//
// With --factory, on a factory-fresh card (DES card master key of zeros), at the PICC level: the key settings and
// version before any authentication, AuthenticateISO with libfreefare's DES key of zeros, the key settings and
// version and the card's UID in that 2K3DES session, ChangeKey of the master key to the AES key AESKEY (32 hex digits)
// of version VERSION (2 hex digits; libfreefare sends key number 80 for an AES key at the PICC level), the DES key
// tried again, then AuthenticateAES with AESKEY and the key settings and version again:
//
//     rawsettings HEX                        (GetKeySettings sent through libnfc alone, ISO-wrapped: data ‖ 91 status)
//     keysettings SS N                       (mifare_desfire_get_key_settings: settings in hex, max keys, 4 low bits)
//     keyversion VV                          (mifare_desfire_get_key_version of key 0)
//     auth-iso ok                            (mifare_desfire_authenticate_iso with the DES key of zeros)
//     keysettings SS N, keyversion VV        (again, their CMACs checked in the 2K3DES session)
//     carduid HEX                            (GetCardUID, enciphered under 2K3DES)
//     changekey ok                           (mifare_desfire_change_key to AESKEY)
//     auth-iso refused SS                    (the DES key of zeros again, refused with card status SS)
//     auth-aes ok                            (mifare_desfire_authenticate_aes with AESKEY)
//     keyversion VV, keysettings SS N        (in the AES session)
//     rawsettings HEX                        (the first two data bytes and the status only: the CMAC is not checked)
//
// Errors go to standard error as "error STEP: libfreefare's message", and the exit status is 1.
#include <freefare.h>
#include <nfc/nfc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MifareTag card;

static int fail(const char *step) {
    fprintf(stderr, "error %s: %s\n", step, card ? freefare_strerror(card) : "no card");
    return 1;
}

static nfc_device *device;

static int parse_hex(const char *text, uint8_t *out, size_t max) {
    size_t length = strlen(text);
    if (length % 2 != 0 || length / 2 > max) return -1;
    for (size_t i = 0; i < length / 2; i++) {
        unsigned value;
        if (sscanf(text + 2 * i, "%2x", &value) != 1) return -1;
        out[i] = (uint8_t)value;
    }
    return (int)(length / 2);
}

static void print_hex(const uint8_t *bytes, size_t count) {
    for (size_t i = 0; i < count; i++) printf("%02x", bytes[i]);
}

// GetKeySettings sent through libnfc alone (90 45 00 00 00), beside libfreefare's session: prints "rawsettings"
// and the first `shown` data bytes with the status word.
static int raw_key_settings(size_t shown) {
    const uint8_t apdu[] = {0x90, 0x45, 0x00, 0x00, 0x00};
    uint8_t answer[64];
    int length = nfc_initiator_transceive_bytes(device, apdu, sizeof apdu, answer, sizeof answer, 0);
    if (length < 2 || (size_t)length < shown + 2) return fprintf(stderr, "error raw GetKeySettings\n"), 1;
    printf("rawsettings ");
    print_hex(answer, shown);
    print_hex(answer + length - 2, 2);
    printf("\n");
    return 0;
}

static int print_key_settings_and_version(void) {
    uint8_t settings, max_keys, version;
    if (mifare_desfire_get_key_settings(card, &settings, &max_keys) < 0) return fail("get_key_settings");
    printf("keysettings %02x %u\n", settings, max_keys);
    if (mifare_desfire_get_key_version(card, 0, &version) < 0) return fail("get_key_version");
    printf("keyversion %02x\n", version);
    return 0;
}

// --factory: the factory DES master key opened with AuthenticateISO and changed to an AES key.
static int factory(const char *aes_hex, const char *version_hex) {
    uint8_t aes_bytes[16], version, zeros[8] = {0};
    if (parse_hex(aes_hex, aes_bytes, 16) != 16 || parse_hex(version_hex, &version, 1) != 1) {
        fprintf(stderr, "error arguments: AESKEY is 32 hex digits, VERSION 2\n");
        return 2;
    }
    if (raw_key_settings(2) || print_key_settings_and_version()) return 1;
    MifareDESFireKey des = mifare_desfire_des_key_new(zeros);
    if (mifare_desfire_authenticate_iso(card, 0, des) < 0) return fail("authenticate_iso");
    printf("auth-iso ok\n");
    if (print_key_settings_and_version()) return 1;
    char *uid;
    if (mifare_desfire_get_card_uid(card, &uid) < 0) return fail("get_card_uid");
    printf("carduid %s\n", uid);
    free(uid);
    MifareDESFireKey aes = mifare_desfire_aes_key_new_with_version(aes_bytes, version);
    if (mifare_desfire_change_key(card, 0, aes, NULL) < 0) return fail("change_key");
    printf("changekey ok\n");
    if (mifare_desfire_authenticate_iso(card, 0, des) == 0) return fprintf(stderr, "error the DES key still opens\n"), 1;
    printf("auth-iso refused %02x\n", mifare_desfire_last_picc_error(card));
    if (mifare_desfire_authenticate_aes(card, 0, aes) < 0) return fail("authenticate_aes");
    printf("auth-aes ok\n");
    if (print_key_settings_and_version() || raw_key_settings(2)) return 1;
    mifare_desfire_key_free(des);
    mifare_desfire_key_free(aes);
    return 0;
}

int main(int argc, char **argv) {
    int factory_mode = argc == 5 && strcmp(argv[2], "--factory") == 0;
    if (argc < 5) {
        fprintf(stderr, "usage: desfire-judge CONNSTRING AID KEYNO KEY [--uid] [--commit-file FILE HEX]\n"
                        "       desfire-judge CONNSTRING --factory AESKEY VERSION\n");
        return 2;
    }
    uint8_t aid_bytes[3], key_bytes[16], write_bytes[4096];
    int write_length = 0, write_file = -1, want_uid = 0;
    if (!factory_mode && (parse_hex(argv[2], aid_bytes, 3) != 3 || parse_hex(argv[4], key_bytes, 16) != 16)) {
        fprintf(stderr, "error arguments: AID is 6 hex digits, KEY 32\n");
        return 2;
    }
    uint8_t key_number = (uint8_t)atoi(argv[3]);
    for (int i = 5; i < argc; i++) {
        if (strcmp(argv[i], "--uid") == 0) {
            want_uid = 1;
        } else if (strcmp(argv[i], "--commit-file") == 0 && i + 2 < argc) {
            write_file = atoi(argv[i + 1]);
            write_length = parse_hex(argv[i + 2], write_bytes, sizeof write_bytes);
            i += 2;
        }
    }

    nfc_context *context;
    nfc_init(&context);
    if (!context) return fprintf(stderr, "error nfc_init\n"), 1;
    device = nfc_open(context, argv[1]);
    if (!device) return fprintf(stderr, "error nfc_open %s\n", argv[1]), 1;
    if (nfc_initiator_init(device) < 0) return fprintf(stderr, "error nfc_initiator_init\n"), 1;
    MifareTag *tags = freefare_get_tags(device);
    if (!tags) return fprintf(stderr, "error freefare_get_tags\n"), 1;
    for (int i = 0; tags[i]; i++) {
        if (freefare_get_tag_type(tags[i]) == DESFIRE) {
            card = tags[i];
            break;
        }
    }
    if (!card) return fprintf(stderr, "error no DESFire card in the field\n"), 1;
    if (mifare_desfire_connect(card) < 0) return fail("connect");
    if (factory_mode) {
        int status = factory(argv[3], argv[4]);
        mifare_desfire_disconnect(card);
        freefare_free_tags(tags);
        nfc_close(device);
        nfc_exit(context);
        return status;
    }

    struct mifare_desfire_version_info version;
    if (mifare_desfire_get_version(card, &version) < 0) return fail("get_version");
    printf("version ");
    print_hex((const uint8_t *)&version.hardware, 7);
    printf(" ");
    print_hex((const uint8_t *)&version.software, 7);
    printf(" ");
    print_hex(version.uid, 7);
    printf("\n");

    uint32_t free_memory;
    if (mifare_desfire_free_mem(card, &free_memory) < 0) return fail("free_mem");
    printf("free %u\n", free_memory);

    MifareDESFireAID *aids;
    size_t aid_count;
    if (mifare_desfire_get_application_ids(card, &aids, &aid_count) < 0) return fail("get_application_ids");
    printf("aids");
    for (size_t i = 0; i < aid_count; i++) {
        uint32_t value = mifare_desfire_aid_get_aid(aids[i]);
        printf(" %02x%02x%02x", value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF);
    }
    printf("\n");
    if (aid_count) mifare_desfire_free_application_ids(aids);

    MifareDESFireAID aid = mifare_desfire_aid_new(aid_bytes[0] | aid_bytes[1] << 8 | aid_bytes[2] << 16);
    if (mifare_desfire_select_application(card, aid) < 0) return fail("select_application");
    MifareDESFireKey key = mifare_desfire_aes_key_new(key_bytes);
    if (mifare_desfire_authenticate_aes(card, key_number, key) < 0) return fail("authenticate_aes");
    printf("auth ok\n");

    if (want_uid) {
        char *uid;
        if (mifare_desfire_get_card_uid(card, &uid) < 0) return fail("get_card_uid");
        printf("carduid %s\n", uid);
        free(uid);
    }

    if (write_file >= 0 && write_length > 0) {
        if (mifare_desfire_write_data(card, (uint8_t)write_file, 0, (size_t)write_length, write_bytes) < 0)
            return fail("write_data");
        if (mifare_desfire_commit_transaction(card) < 0) return fail("commit_transaction");
        printf("written %d %d\n", write_file, write_length);
    }

    uint8_t *files;
    size_t file_count;
    if (mifare_desfire_get_file_ids(card, &files, &file_count) < 0) return fail("get_file_ids");
    printf("files");
    for (size_t i = 0; i < file_count; i++) printf(" %u", files[i]);
    printf("\n");

    for (size_t i = 0; i < file_count; i++) {
        struct mifare_desfire_file_settings settings;
        if (mifare_desfire_get_file_settings(card, files[i], &settings) < 0) return fail("get_file_settings");
        printf("file %u type=%u comm=%u access=%04x", files[i], settings.file_type, settings.communication_settings,
               settings.access_rights);
        if (settings.file_type == MDFT_STANDARD_DATA_FILE || settings.file_type == MDFT_BACKUP_DATA_FILE) {
            uint32_t size = settings.settings.standard_file.file_size;
            printf(" size=%u\n", size);
            uint8_t *data = calloc(size + 64, 1);
            ssize_t read = mifare_desfire_read_data(card, files[i], 0, size, data);
            if (read < 0) return fail("read_data");
            printf("data %u ", files[i]);
            print_hex(data, (size_t)read);
            printf("\n");
            free(data);
        } else if (settings.file_type == MDFT_CYCLIC_RECORD_FILE_WITH_BACKUP ||
                   settings.file_type == MDFT_LINEAR_RECORD_FILE_WITH_BACKUP) {
            uint32_t size = settings.settings.linear_record_file.record_size;
            uint32_t current = settings.settings.linear_record_file.current_number_of_records;
            printf(" size=%u max=%u current=%u\n", size, settings.settings.linear_record_file.max_number_of_records,
                   current);
            if (current == 0) continue;
            uint8_t *data = calloc((size_t)size * current + 64, 1);
            ssize_t read = mifare_desfire_read_records(card, files[i], 0, 0, data);
            if (read < 0) return fail("read_records");
            for (uint32_t r = 0; r < current && (ssize_t)((r + 1) * size) <= read; r++) {
                printf("record %u %u ", files[i], r);
                print_hex(data + (size_t)r * size, size);
                printf("\n");
            }
            free(data);
        } else {
            printf("\n");
        }
    }
    free(files);

    mifare_desfire_key_free(key);
    free(aid);
    mifare_desfire_disconnect(card);
    freefare_free_tags(tags);
    nfc_close(device);
    nfc_exit(context);
    return 0;
}
