"""FLEURS's fixed facts: its name, the release, the test split's size per language, the hub
repo and the columns of its transcript files. A leaf: the spec and every module of the
benchmark read them from here."""

from __future__ import annotations

NAME = "fleurs"
RELEASE = "FLEURS (google/fleurs)"
"""FLoRes sentences read aloud in 102 languages (CC BY 4.0), as the hub repo publishes them."""

TEST_SIZES: dict[str, int] = {"en_us": 647}
"""The test split's utterances per language (hub config) where a source gives it; a language
not here is read without a count check, and its note says so."""
LANGUAGES: tuple[str, ...] = (
    "af_za", "am_et", "ar_eg", "as_in", "ast_es", "az_az", "be_by", "bg_bg", "bn_in", "bs_ba",
    "ca_es", "ceb_ph", "ckb_iq", "cmn_hans_cn", "cs_cz", "cy_gb", "da_dk", "de_de", "el_gr",
    "en_us", "es_419", "et_ee", "fa_ir", "ff_sn", "fi_fi", "fil_ph", "fr_fr", "ga_ie", "gl_es",
    "gu_in", "ha_ng", "he_il", "hi_in", "hr_hr", "hu_hu", "hy_am", "id_id", "ig_ng", "is_is",
    "it_it", "ja_jp", "jv_id", "ka_ge", "kam_ke", "kea_cv", "kk_kz", "km_kh", "kn_in", "ko_kr",
    "ky_kg", "lb_lu", "lg_ug", "ln_cd", "lo_la", "lt_lt", "luo_ke", "lv_lv", "mi_nz", "mk_mk",
    "ml_in", "mn_mn", "mr_in", "ms_my", "mt_mt", "my_mm", "nb_no", "ne_np", "nl_nl", "nso_za",
    "ny_mw", "oc_fr", "om_et", "or_in", "pa_in", "pl_pl", "ps_af", "pt_br", "ro_ro", "ru_ru",
    "sd_in", "sk_sk", "sl_si", "sn_zw", "so_so", "sr_rs", "sv_se", "sw_ke", "ta_in", "te_in",
    "tg_tj", "th_th", "tr_tr", "uk_ua", "umb_ao", "ur_pk", "uz_uz", "vi_vn", "wo_sn", "xh_za",
    "yo_ng", "yue_hant_hk", "zu_za")
"""The release's 102 languages, its hub configs (the hub's loading script lists them), each
a task: ``--audiobench-fleurs-language`` picks those a run scores."""
DEFAULT_LANGUAGES: tuple[str, ...] = ("en_us",)
CODES: dict[str, str] = {"en_us": "en", "cmn_hans_cn": "zh", "yue_hant_hk": "yue"}
"""The reference pipeline's language of a config where it has its own steps (English's
normaliser, Chinese's text normaliser and characters, Cantonese's conversion to simplified
characters), as lmms-eval maps FLEURS's languages onto Qwen2-Audio's recipe; every other
language goes through the basic normaliser alone, under its first subtag."""


def code(language: str) -> str:
    """The reference pipeline's language of the config ``language``."""
    return CODES.get(language, language.split("_", 1)[0])


HUB_REPO = "google/fleurs"
"""Per language ``data/<language>/test.tsv`` and ``data/<language>/audio/test.tar.gz``."""

COLUMNS: tuple[str, ...] = ("id", "file_name", "raw_transcription", "transcription",
                            "phonemes", "num_samples", "gender")
"""The seven tab-separated columns of a ``<split>.tsv``, which has no header row. ``id`` is
the sentence's, shared by the speakers who read it; ``file_name`` the utterance's audio;
``transcription`` the reference every suite scores against (lower case, no punctuation),
never ``raw_transcription`` (as written). The fifth column, a phoneme-like spelling out of the
transcription, is unnamed upstream (the hub's loading script drops it); nothing reads it."""
