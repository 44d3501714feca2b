"""Journeys in a real Chromium (Debian's, driven by Selenium through chromium-driver), with screenshots at 1280 and 390 px."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from bot.console.server import ConsoleThread
from review.answer_models import CuratedAnswer
from review.db import session_scope
from tests.bot.console.conftest import PASSWORD
from tests.pipeline.docs_factory import write_pdf
from tests.review.factories import make_drafted

CHROMIUM, DRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
SHOTS = Path(os.environ.get("ORIENTA_SCREENSHOTS") or Path(tempfile.gettempdir()) / "orienta-console-shots")
pytestmark = pytest.mark.skipif(not (CHROMIUM.exists() and DRIVER.exists()), reason="needs /usr/bin/chromium and /usr/bin/chromedriver (.ci/services.sh installs chromium and chromium-driver)")


@pytest.fixture
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=str(DRIVER)), options=options)
    driver.implicitly_wait(15)
    yield driver
    driver.quit()


@pytest.fixture
def server(svc):
    thread = ConsoleThread(svc, host="127.0.0.1", port=0).start()
    yield f"http://127.0.0.1:{thread.port}"
    thread.stop()


def _shot(driver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1280, 390):  # the whole page at that width (device metrics through the DevTools protocol)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": min(max(height, 600), 6000), "deviceScaleFactor": 1, "mobile": width < 600})
        driver.save_screenshot(str(SHOTS / f"{name}-{width}.png"))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _wait_text(driver, text: str, timeout: float = 120.0) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # the page reloads itself when a background job ends: an element may go stale between two looks
    WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: text in d.find_element("tag name", "body").text)


def test_sign_in_review_documents_answers_and_faq(browser, server, svc, tmp_path):
    from selenium.webdriver.common.by import By

    with session_scope(svc.engine) as session:
        first, _ = make_drafted(session, subject="Fechas de examen", question="¿Cuándo son los exámenes de febrero?")
        second, _ = make_drafted(session, subject="Créditos", question="¿Cuántos créditos necesito para recibirme?")
        answer = CuratedAnswer(question="¿Horario de bedelía?", text="De 9 a 13.", approved_by="console:lucia")
        session.add(answer)
        session.flush()
        answer_id = answer.id
    d = browser
    # sign in
    d.get(server + "/")
    assert "/login" in d.current_url
    _shot(d, "login")
    d.find_element(By.NAME, "name").send_keys("lucia")
    d.find_element(By.NAME, "password").send_keys(PASSWORD)
    d.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    _wait_text(d, "Cola de revisión")
    assert "Fechas de examen" in d.page_source
    _shot(d, "queue")
    # approve a draft
    d.get(f"{server}/drafts/{first.id}")
    _shot(d, "draft")
    d.find_element(By.ID, "approve").click()
    _wait_text(d, "Aprobado por lucia")
    # edit and send
    d.get(f"{server}/drafts/{second.id}")
    box = d.find_element(By.ID, "edit-text")
    box.clear()
    box.send_keys("Hola: se necesitan 450 créditos.")
    d.find_element(By.ID, "edit-send").click()
    _wait_text(d, "Editado y aprobado por lucia")
    assert "se necesitan 450 créditos" in d.find_element(By.CSS_SELECTOR, ".sent").text
    _shot(d, "decided")
    # upload a PDF and see it indexed
    pdf = write_pdf(tmp_path / "reglamento_becas.pdf", ["Reglamento de becas. La beca de alimentación se solicita en abril en el Servicio de Bienestar."])
    d.get(server + "/documents")
    d.find_element(By.ID, "upload-file").send_keys(str(pdf))
    d.find_element(By.ID, "upload").click()
    _wait_text(d, "reglamento_becas")
    _wait_text(d, "1 agregado(s)")
    assert svc.index.documents()["reglamento_becas"]["chunks"] >= 1
    _shot(d, "documents")
    # replace it
    newer = write_pdf(tmp_path / "reglamento_becas_2027.pdf", ["Reglamento de becas 2027. La beca de alimentación se solicita en mayo."])
    d.get(server + "/documents/reglamento_becas")
    d.find_element(By.ID, "replace-file").send_keys(str(newer))
    d.find_element(By.ID, "replace").click()
    _wait_text(d, "se solicita en mayo")
    assert set(svc.index.documents()) == {"reglamento_becas"}
    _shot(d, "document")
    # edit an approved answer
    d.get(f"{server}/answers/{answer_id}")
    box = d.find_element(By.ID, "answer-text")
    box.clear()
    box.send_keys("De 9 a 15, de lunes a viernes.")
    d.find_element(By.ID, "answer-save").click()
    _wait_text(d, "Versión 2")
    _shot(d, "answer")
    # turn a gap into an FAQ entry
    from review import queue

    with session_scope(svc.engine) as session:
        gap, message = make_drafted(session, question="¿Hay estacionamiento para estudiantes?", text="No encontré información.")
        gap.no_info = True
        session.add(gap)
        session.flush()
        queue.edit(session=session, draft_id=gap.id, actor="cli:ana", text="Sí: en el subsuelo del edificio central, con el carné.")
    d.get(server + "/gaps")
    _wait_text(d, "Respondidas a mano")
    _shot(d, "gaps")
    d.find_element(By.CSS_SELECTOR, ".faq-save").click()
    _wait_text(d, "faq-")
    _wait_text(d, "terminado")
    assert any(doc.startswith("faq-") for doc in svc.index.documents())
    for name in ("login", "queue", "draft", "decided", "documents", "document", "answer", "gaps"):
        for width in (1280, 390):
            assert (SHOTS / f"{name}-{width}.png").stat().st_size > 5_000
